//! The tenant planes: demo tenants, their requirements and their bench of candidates.

use chrono::{Days, NaiveDate};

use crate::copy_text::{NULL, date, push_row, text_array};
use crate::reference::{DEMO_REQUIREMENTS, DEMO_TENANTS, LABOR_CATEGORIES, SKILLS};
use crate::rng::{Rng, cumulative};

/// Compartments with the percent of TS/SCI candidates holding each, in canonical order.
const COMPARTMENTS: [(&str, u64); 5] = [("G", 20), ("HCS", 12), ("KLM", 4), ("SI", 70), ("TK", 60)];

pub(crate) fn tenants(out: &mut String) -> u64 {
    for tenant in DEMO_TENANTS {
        push_row(out, &[&tenant.id.to_string(), tenant.name]);
    }
    DEMO_TENANTS.len() as u64
}

/// The demo requirements; `predecessors[i]` is the PIID of the award anchoring requirement i.
pub(crate) fn requirements(out: &mut String, predecessors: &[String], today: NaiveDate) -> u64 {
    for (index, requirement) in DEMO_REQUIREMENTS.iter().enumerate() {
        let due = today + Days::new(requirement.due_in_days.unsigned_abs());
        push_row(
            out,
            &[
                &requirement.id.to_string(),
                &DEMO_TENANTS[requirement.tenant].id.to_string(),
                requirement.title,
                requirement.agency,
                requirement.naics,
                requirement.clearance,
                &text_array(requirement.compartments),
                &requirement.seats.to_string(),
                &date(due),
                predecessors.get(index).map_or(NULL, String::as_str),
            ],
        );
    }
    DEMO_REQUIREMENTS.len() as u64
}

/// The candidates of tenant `tenant`; every 40th also gets a declined self-identification row in
/// `eeo_out`.
pub(crate) fn candidates(
    rng: &mut Rng,
    tenant: usize,
    count: u64,
    today: NaiveDate,
    out: &mut String,
    eeo_out: &mut String,
) {
    const LEVELS: [(&str, u64); 4] =
        [("confidential", 5), ("secret", 40), ("top_secret", 25), ("ts_sci", 30)];
    let level_weights = cumulative(LEVELS.iter().map(|(_, weight)| *weight));
    let tenant_id = DEMO_TENANTS[tenant].id.to_string();
    for number in 0..count {
        let id = rng.uuid();
        let level = rng.weighted(&level_weights);
        let status = match rng.below(100) {
            0..60 => "active",
            60..85 => "current",
            _ => "expired",
        };
        let mut compartments = Vec::new();
        if LEVELS[level].0 == "ts_sci" {
            for (code, percent) in COMPARTMENTS {
                if rng.percent(percent) {
                    compartments.push(code);
                }
            }
        }
        let polygraph = match (LEVELS[level].0, rng.below(100)) {
            ("ts_sci", 0..45) => "ci",
            ("ts_sci", 45..75) => "full_scope",
            ("top_secret", 0..20) => "ci",
            _ => "none",
        };
        let labor = LABOR_CATEGORIES[rng.skewed(LABOR_CATEGORIES.len())];
        let mut skills = Vec::new();
        for _ in 0..1 + rng.index(3) {
            let skill = SKILLS[rng.index(SKILLS.len())];
            if !skills.contains(&skill) {
                skills.push(skill);
            }
        }
        skills.sort_unstable();
        let available = match rng.below(100) {
            0..50 => today - Days::new(rng.below(180)),
            50..70 => today + Days::new(1 + rng.below(30)),
            _ => today + Days::new(31 + rng.below(335)),
        };
        push_row(
            out,
            &[
                &id.to_string(),
                &tenant_id,
                LEVELS[level].0,
                &(level + 1).to_string(),
                status,
                &text_array(&compartments),
                polygraph,
                labor,
                &text_array(&skills),
                &date(available),
            ],
        );
        if number % 40 == 0 {
            push_row(eeo_out, &[&id.to_string(), &tenant_id, "veteran_status", "declined"]);
        }
    }
}
