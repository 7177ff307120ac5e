//! The market and graph planes: vendors, awards and subawards, as COPY text rows.

use std::collections::HashSet;

use chrono::{Days, Months, NaiveDate};

use crate::copy_text::{cents, date, push_row};
use crate::reference::{
    AGENCIES, DEMO_REQUIREMENTS, FEDERAL_NAICS, NAME_FIRST, NAME_SECOND, NAME_SUFFIX,
    SMALL_SET_ASIDES, agency_index,
};
use crate::rng::{Rng, cumulative};

/// A generated vendor.
pub(crate) struct Vendor {
    pub(crate) uei: String,
    pub(crate) name: String,
    pub(crate) parent: Option<usize>,
    pub(crate) small: bool,
}

/// The market's fixed parts, drawn once: NAICS weights, vendors and which NAICS codes each
/// vendor works in.
pub(crate) struct Market {
    pub(crate) naics: Vec<(&'static str, &'static str)>,
    naics_weights: Vec<u64>,
    agency_weights: Vec<u64>,
    pub(crate) vendors: Vec<Vendor>,
    /// For each NAICS index, the vendors working in it, in vendor order (large ones first).
    pools: Vec<Vec<usize>>,
    today: NaiveDate,
}

/// What an award needs to know to spawn subawards and to anchor a requirement.
pub(crate) struct AwardFacts {
    pub(crate) id: i64,
    pub(crate) piid: String,
    naics: usize,
    vendor: usize,
    start: NaiveDate,
    current_end: NaiveDate,
    value_cents: i64,
}

impl Market {
    pub(crate) fn new(
        seed: u64,
        vendor_count: usize,
        naics: Vec<(&'static str, &'static str)>,
        today: NaiveDate,
    ) -> Market {
        let mut rng = Rng::stream(seed, "vendors");
        let naics_weights = cumulative(naics.iter().map(|(code, _)| {
            FEDERAL_NAICS.iter().find(|(c, _)| c == code).map_or(1, |(_, weight)| *weight)
        }));
        let agency_weights = cumulative(AGENCIES.iter().map(|agency| agency.weight));
        let large = (vendor_count / 12).max(1);
        let mut seen = HashSet::new();
        let mut vendors = Vec::with_capacity(vendor_count);
        let mut pools = vec![Vec::new(); naics.len()];
        for index in 0..vendor_count {
            let uei = loop {
                let candidate = uei(&mut rng);
                if seen.insert(candidate.clone()) {
                    break candidate;
                }
            };
            let name = vendor_name(index);
            let small = index >= large;
            let parent = (small && rng.percent(10)).then(|| rng.index(large));
            let specialties = 1 + rng.index(3);
            let mut codes = Vec::with_capacity(specialties);
            for _ in 0..specialties {
                let code = rng.weighted(&naics_weights);
                if !codes.contains(&code) {
                    codes.push(code);
                }
            }
            for code in codes {
                pools[code].push(index);
            }
            vendors.push(Vendor { uei, name, parent, small });
        }
        Market { naics, naics_weights, agency_weights, vendors, pools, today }
    }

    fn naics_index(&self, code: &str) -> usize {
        self.naics.iter().position(|(c, _)| *c == code).unwrap_or(0)
    }

    fn pick_vendor(&self, rng: &mut Rng, naics: usize) -> usize {
        let pool = &self.pools[naics];
        // A code nobody specialises in goes to any vendor, uniformly: the long tail.
        if pool.is_empty() { rng.index(self.vendors.len()) } else { pool[rng.skewed(pool.len())] }
    }

    /// The award with id `id`: an anchor for a demo requirement when `anchor` is set.
    pub(crate) fn award(
        &self,
        rng: &mut Rng,
        id: i64,
        anchor: Option<usize>,
        out: &mut String,
    ) -> AwardFacts {
        let (agency, naics) = match anchor {
            Some(index) => {
                let requirement = &DEMO_REQUIREMENTS[index];
                (agency_index(requirement.agency).unwrap_or(0), self.naics_index(requirement.naics))
            }
            None => (rng.weighted(&self.agency_weights), rng.weighted(&self.naics_weights)),
        };
        let vendor = self.pick_vendor(rng, naics);
        let small = self.vendors[vendor].small;

        // Base year plus 0-4 option years; anchors end within the coming year.
        let (start, option_years) = match anchor {
            Some(_) => {
                let ends_in_months = 5 + rng.below(10) as u32;
                let start = add_months(self.today, ends_in_months) - Months::new(60);
                (start + Days::new(1), 4)
            }
            None => {
                let back = rng.below(6 * 365);
                (self.today - Days::new(back), rng.below(5) as u32)
            }
        };
        let short = anchor.is_none() && rng.percent(15);
        let potential_end = if short {
            add_months(start, 3 + rng.below(9) as u32) - Days::new(1)
        } else {
            add_months(start, 12 * (1 + option_years)) - Days::new(1)
        };
        let current_end = if short {
            potential_end
        } else {
            let elapsed_years = elapsed_months(start, self.today) / 12;
            let exercised = option_years.min(elapsed_years);
            add_months(start, 12 * (1 + exercised)) - Days::new(1)
        };

        let value_cents = match anchor {
            Some(_) => (25_000_000 + rng.below(125_000_000) as i64) * 100,
            None => award_value_cents(rng, short),
        };
        let performed = elapsed_months(start, self.today.min(current_end)).max(1);
        let total = elapsed_months(start, potential_end).max(1);
        let share_percent = (60 + rng.below(41)) as i64;
        let obligated_cents =
            (i128::from(value_cents) * i128::from(performed.min(total)) * i128::from(share_percent)
                / (i128::from(total) * 100)) as i64;
        let set_aside = if small && rng.percent(45) {
            SMALL_SET_ASIDES[rng.index(SMALL_SET_ASIDES.len())]
        } else {
            "NONE"
        };
        let piid = format!(
            "{}{}{:02}{}{:07}",
            AGENCIES[agency].office,
            letters(rng, 3),
            start.format("%y"),
            ['C', 'D', 'F'][rng.index(3)],
            id
        );
        push_row(
            out,
            &[
                &id.to_string(),
                &piid,
                &(agency + 1).to_string(),
                self.naics[naics].0,
                &self.vendors[vendor].uei,
                &date(start),
                &date(current_end),
                &date(potential_end),
                &cents(obligated_cents),
                &cents(value_cents),
                set_aside,
            ],
        );
        AwardFacts { id, piid, naics, vendor, start, current_end, value_cents }
    }

    /// Subawards of one prime award, appended to `out`; returns how many.
    pub(crate) fn subawards(
        &self,
        rng: &mut Rng,
        award: &AwardFacts,
        next_id: &mut i64,
        guaranteed: bool,
        out: &mut String,
    ) -> u64 {
        let large_prime = !self.vendors[award.vendor].small;
        let eligible = award.value_cents >= 50_000_000 && (large_prime || rng.percent(30));
        if !guaranteed && !eligible {
            return 0;
        }
        let count = if guaranteed { 3 } else { rng.below(4) };
        let pool = &self.pools[award.naics];
        let mut written = 0;
        for _ in 0..count {
            // A prime's usual partners: six fixed neighbours in its NAICS pool and two fixed
            // small businesses anywhere, so relationships repeat and degrees stay bounded.
            let neighbour = rng.index(8);
            let large = self.vendors.len() / 12;
            let sub = if !pool.is_empty() && neighbour < 6 {
                pool[(award.vendor * 7 + neighbour) % pool.len()]
            } else {
                large + (award.vendor * 13 + neighbour) % (self.vendors.len() - large)
            };
            if sub == award.vendor {
                continue;
            }
            let last = self.today.min(award.current_end);
            let span = (last - award.start).num_days().max(1) as u64;
            let on = award.start + Days::new(rng.below(span));
            let amount = award.value_cents / 100 * (3 + rng.below(15) as i64);
            push_row(
                out,
                &[
                    &next_id.to_string(),
                    &award.id.to_string(),
                    &self.vendors[award.vendor].uei,
                    &self.vendors[sub].uei,
                    &cents(amount),
                    &date(on),
                ],
            );
            *next_id += 1;
            written += 1;
        }
        written
    }
}

/// A long-tailed award value in cents, with integer arithmetic only: a decade drawn from
/// decreasing weights, then a uniform mantissa.
fn award_value_cents(rng: &mut Rng, short: bool) -> i64 {
    // Decades of dollars: 10^3 .. 10^9.
    const WEIGHTS: [u64; 7] = [260, 330, 230, 120, 45, 13, 2];
    let decade = if short {
        rng.index(3)
    } else {
        let table = cumulative(WEIGHTS);
        rng.weighted(&table)
    };
    let base = 10i64.pow(3 + decade as u32);
    let dollars = base + (base * 9 / 1000) * rng.below(1000) as i64;
    dollars * 100 + rng.below(100) as i64
}

/// A format-valid UEI (DOMAIN.md section 2): 12 characters, no I or O, first not 0, no run of
/// nine digits. The checksum is unpublished; the last character is random.
pub(crate) fn uei(rng: &mut Rng) -> String {
    const FIRST: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ123456789";
    const REST: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ0123456789";
    loop {
        let mut text = String::with_capacity(12);
        text.push(char::from(FIRST[rng.index(FIRST.len())]));
        for _ in 0..11 {
            text.push(char::from(REST[rng.index(REST.len())]));
        }
        let mut run = 0;
        let mut longest = 0;
        for byte in text.bytes() {
            run = if byte.is_ascii_digit() { run + 1 } else { 0 };
            longest = longest.max(run);
        }
        if longest < 9 {
            return text;
        }
    }
}

fn vendor_name(index: usize) -> String {
    const PLACES: &[&str] = &[
        "Atlantic",
        "Pacific",
        "Capital",
        "Gulf",
        "Mountain",
        "Northern",
        "Southern",
        "Western",
        "Eastern",
        "Central",
        "Coastal",
        "Continental",
    ];
    let pairs = NAME_FIRST.len() * NAME_SECOND.len();
    let first = NAME_FIRST[index % NAME_FIRST.len()];
    let second = NAME_SECOND[(index / NAME_FIRST.len()) % NAME_SECOND.len()];
    let round = index / pairs;
    let suffix = NAME_SUFFIX[(index * 5 + round) % NAME_SUFFIX.len()];
    match round {
        0 => format!("{first} {second} {suffix}"),
        r if r <= PLACES.len() => format!("{first} {} {second} {suffix}", PLACES[r - 1]),
        r => format!(
            "{first} {} {second} {} {suffix}",
            PLACES[r % PLACES.len()],
            r / PLACES.len() + 1
        ),
    }
}

fn letters(rng: &mut Rng, count: usize) -> String {
    const LETTERS: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ0123456789";
    (0..count).map(|_| char::from(LETTERS[rng.index(LETTERS.len())])).collect()
}

fn add_months(day: NaiveDate, months: u32) -> NaiveDate {
    day.checked_add_months(Months::new(months)).unwrap_or(day)
}

/// Whole months from `from` to `to` (0 when `to` is earlier).
fn elapsed_months(from: NaiveDate, to: NaiveDate) -> u32 {
    use chrono::Datelike as _;
    let months = (to.year() - from.year()) * 12 + to.month() as i32
        - from.month() as i32
        - i32::from(to.day() < from.day());
    u32::try_from(months).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    //! Format rules of generated identifiers.

    use super::*;

    #[test]
    fn ueis_follow_the_sam_rules() {
        let mut rng = Rng::stream(3, "uei");
        for _ in 0..2000 {
            let text = uei(&mut rng);
            assert_eq!(text.len(), 12);
            assert!(!text.contains(['I', 'O']));
            assert!(!text.starts_with('0'));
            assert!(text.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()));
        }
    }

    #[test]
    fn months_elapse_by_calendar() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        assert_eq!(elapsed_months(day(2024, 1, 15), day(2024, 3, 14)), 1);
        assert_eq!(elapsed_months(day(2024, 1, 15), day(2024, 3, 15)), 2);
        assert_eq!(elapsed_months(day(2024, 3, 15), day(2024, 1, 15)), 0);
    }
}
