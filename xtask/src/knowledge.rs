//! `cargo xtask knowledge [--wordnet DIR] [--check]`: generates planner-knowledge's
//! `data/english.txt`, the general language knowledge the screen and the proposer read, from
//! WordNet 3.0 as Debian's `wordnet-base` installs it (`/usr/share/wordnet`).
//!
//! One line per lemma of any part of speech, sorted by bytes:
//!
//! ```text
//! lemma<TAB>parts of speech<TAB>noun senses, most frequent first
//! ```
//!
//! A part of speech is `n`, `v`, `a` or `r` (adverb), then how often the lemma was tagged as
//! that part in WordNet's sense-tagged corpora, when it was (`n12v30`: a noun 12 times, a verb
//! 30): which part a word usually is. A trailing `o` marks a word of origin: an adjective that
//! pertains to a country or a continent ("Mexican", "Korean", "Asian": WordNet's pertainym
//! pointers to an instance of [`ORIGIN_PLACES`]), or a person noun for its natives (a member of
//! such a place, or derived from such an adjective): who someone is by where they come from.
//!
//! A noun sense is its lexicographer file number (18 is `noun.person`, 14 `noun.group`, 06
//! `noun.artifact`...), then `w` when it denotes someone of a workforce, or `p` when it is a group
//! of people, or `m` when it is an illness, a disorder or a disability (under WordNet's
//! `pathological_state`), then `:N` when it was tagged N times in WordNet's sense-tagged corpora. After a line
//! `[inflections]`, the irregular forms of WordNet's exception lists: `form<TAB>base<TAB>pos`.
//!
//! Who is of a workforce is read from WordNet's hypernyms: a person sense under one of
//! [`WORKFORCE`] (a worker, a professional, an expert, a leader, the operator of a machine, an
//! applicant or job candidate...), and the groups under personnel or the workforce. The generic
//! person synsets (`person`, `people`) count too: ranking people as such is ranking individuals.
//! Proper names (WordNet's instances: "Spender" the poet, "Guest" the journalist) are left out
//! of a common noun's senses. `--check` regenerates into memory and fails when the committed file differs.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Where Debian's `wordnet-base` installs WordNet 3.0.
pub(crate) const WORDNET: &str = "/usr/share/wordnet";

/// The committed file, from the project root.
pub(crate) const OUTPUT: &str = "crates/planner-knowledge/data/english.txt";

/// Synsets whose hyponyms (and themselves) are people of a workforce: WordNet 3.0 offsets in
/// `data.noun`, each named by its first lemma and sense number.
const WORKFORCE: &[(&str, u32)] = &[
    ("worker.n.01", 9_632_518),
    ("professional.n.01", 10_480_253),
    ("expert.n.01", 9_617_867),
    ("leader.n.01", 9_623_038),
    ("operator.n.02", 10_378_412),
    ("engineer.n.01", 9_615_807),
    ("candidate.n.02", 9_890_749),
    ("contractor.n.01", 9_960_688),
    ("creator.n.02", 9_614_315),
    ("custodian.n.01", 9_984_298),
    ("assistant.n.01", 9_815_790),
    ("trainee.n.01", 10_722_385),
    ("personnel.n.01", 8_208_016),
    ("workforce.n.01", 8_212_347),
    ("crew.n.01", 8_273_167),
    ("crew.n.02", 8_242_799),
];

/// Synsets that are people as such (not their hyponyms): ranking them is ranking individuals.
const PEOPLE_AS_SUCH: &[(&str, u32)] = &[
    ("person.n.01", 7_846),
    ("individual.n.02", 10_203_839),
    // Its hyponyms are any petitioner; the job applicant is this sense itself.
    ("applicant.n.01", 9_607_280),
    ("people.n.01", 7_942_152),
    ("folk.n.01", 7_947_255),
];

/// Groups of people: their hyponyms say a question is about people.
const PEOPLE_GROUPS: &[(&str, u32)] = &[("people.n.01", 7_942_152), ("folk.n.01", 7_947_255)];

/// Illnesses, disorders and disabilities: a person's medical condition.
const MEDICAL: &[(&str, u32)] =
    &[("pathological_state.n.01", 14_051_917), ("disorder.n.01", 14_052_403)];

/// Places whose instances say where people come from: countries and continents.
const ORIGIN_PLACES: &[(&str, u32)] = &[("country.n.02", 8_544_813), ("continent.n.01", 9_254_614)];

const PERSON_LEXFILE: u8 = 18;
const STATE_LEXFILE: u8 = 26;

struct Synset {
    lexfile: u8,
    hypernyms: Vec<u32>,
    /// An instance of its hypernym: a proper name ("Stephen Spender", "Edgar Guest").
    instance: bool,
    /// The noun synsets it is a member of (`#m`: a Mexican of Mexico).
    member_of: Vec<u32>,
    /// The adjective synsets derived from it (`+`: Korean the person, Korean the adjective).
    adjectives: Vec<u32>,
    /// Its lemmas, lower case, spaces for underscores.
    lemmas: Vec<String>,
}

pub(crate) fn run(root: &Path, args: &[String]) -> anyhow::Result<()> {
    let mut dir = PathBuf::from(WORDNET);
    let mut check = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--wordnet" => dir = args.next().context("--wordnet needs a directory")?.into(),
            "--check" => check = true,
            other => {
                bail!("unknown argument `{other}`: cargo xtask knowledge [--wordnet DIR] [--check]")
            }
        }
    }
    if !dir.join("data.noun").is_file() {
        bail!(
            "no WordNet 3.0 database in {}: install it with `apt-get install wordnet-base` \
             (Debian), or pass --wordnet DIR",
            dir.display()
        );
    }
    let text = generate(&dir)?;
    let output = root.join(OUTPUT);
    if check {
        let committed =
            fs::read_to_string(&output).with_context(|| format!("reading {}", output.display()))?;
        if committed != text {
            bail!("{OUTPUT} is not what `cargo xtask knowledge` generates: run it and commit");
        }
        eprintln!("knowledge: {OUTPUT} is up to date ({} bytes)", text.len());
        return Ok(());
    }
    fs::write(&output, &text).with_context(|| format!("writing {}", output.display()))?;
    eprintln!("knowledge: wrote {OUTPUT} ({} bytes)", text.len());
    Ok(())
}

/// The file's text from the WordNet database in `dir`.
pub(crate) fn generate(dir: &Path) -> anyhow::Result<String> {
    let read =
        |name: &str| fs::read_to_string(dir.join(name)).with_context(|| format!("reading {name}"));
    let synsets = noun_synsets(&read("data.noun")?)?;
    let workforce = closure_members(&synsets, WORKFORCE);
    let groups = closure_members(&synsets, PEOPLE_GROUPS);
    let medical = closure_members(&synsets, MEDICAL);
    let counts = tag_counts(&read("cntlist.rev")?);
    let origins = origin_lemmas(&synsets, &read("data.adj")?)?;

    // lemma → (parts of speech, noun senses).
    let mut lemmas: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (file, pos) in
        [("index.noun", 'n'), ("index.verb", 'v'), ("index.adj", 'a'), ("index.adv", 'r')]
    {
        for line in read(file)?.lines().filter(|it| !it.starts_with(' ')) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(&lemma), Some(count)) = (fields.first(), fields.get(2)) else { continue };
            let count: usize = count.parse().with_context(|| format!("{file}: {line}"))?;
            let entry = lemmas.entry(lemma.replace('_', " ")).or_default();
            entry.0.push(pos);
            let tagged: u32 = (1..=count)
                .map(|number| {
                    let of = |part: u8| counts.get(&(lemma.to_owned(), part, number)).copied();
                    match pos {
                        'n' => of(1),
                        'v' => of(2),
                        'a' => of(3).or_else(|| of(5)),
                        _ => of(4),
                    }
                    .unwrap_or(0)
                })
                .sum();
            if tagged > 0 {
                let _ = write!(entry.0, "{tagged}");
            }
            if pos != 'n' {
                continue;
            }
            let offsets = &fields[fields.len().saturating_sub(count)..];
            let mut senses = Vec::with_capacity(count);
            for (number, offset) in offsets.iter().enumerate() {
                let offset: u32 = offset.parse().with_context(|| format!("{file}: {line}"))?;
                let synset = synsets.get(&offset).with_context(|| format!("no synset {offset}"))?;
                // A proper name ("Spender" the poet) is no sense of the common noun.
                if synset.instance {
                    continue;
                }
                let mut sense = format!("{:02}", synset.lexfile);
                if workforce.contains(&offset) || PEOPLE_AS_SUCH.iter().any(|&(_, it)| it == offset)
                {
                    sense.push('w');
                } else if groups.contains(&offset) {
                    sense.push('p');
                } else if medical.contains(&offset) {
                    sense.push('m');
                }
                if let Some(&n) = counts.get(&(lemma.to_owned(), 1, number + 1)) {
                    let _ = write!(sense, ":{n}");
                }
                senses.push(sense);
            }
            entry.1 = senses.join(" ");
        }
    }

    let mut out = String::with_capacity(4 << 20);
    out.push_str(
        "# planner knowledge: general English from WordNet 3.0 (Princeton University; licence in \
         LICENSE-WordNet beside this file).\n# Generated by `cargo xtask knowledge` from Debian's \
         wordnet-base: do not edit. Format: xtask/src/knowledge.rs.\n",
    );
    for (lemma, (pos, senses)) in &lemmas {
        let origin = if origins.contains(lemma) { "o" } else { "" };
        let _ = writeln!(out, "{lemma}\t{pos}{origin}\t{senses}");
    }
    out.push_str("[inflections]\n");
    let mut inflections = BTreeMap::new();
    for (file, pos) in [("noun.exc", 'n'), ("verb.exc", 'v'), ("adj.exc", 'a')] {
        for line in read(file)?.lines() {
            let mut fields = line.split_whitespace();
            if let (Some(form), Some(base)) = (fields.next(), fields.next()) {
                inflections
                    .entry((form.replace('_', " "), pos))
                    .or_insert_with(|| base.replace('_', " "));
            }
        }
    }
    for ((form, pos), base) in &inflections {
        let _ = writeln!(out, "{form}\t{base}\t{pos}");
    }
    Ok(out)
}

/// Every noun synset's lexicographer file and hypernyms (instance hypernyms included).
fn noun_synsets(data: &str) -> anyhow::Result<HashMap<u32, Synset>> {
    let mut synsets = HashMap::new();
    for line in data.lines().filter(|it| !it.starts_with(' ')) {
        let fields: Vec<&str> = line.split(" | ").next().unwrap_or("").split(' ').collect();
        let parse = |at: usize, radix: u32| {
            fields
                .get(at)
                .and_then(|it| u32::from_str_radix(it, radix).ok())
                .with_context(|| format!("data.noun: {}", &line[..line.len().min(80)]))
        };
        let offset = parse(0, 10)?;
        let lexfile = u8::try_from(parse(1, 10)?)?;
        let words = parse(3, 16)? as usize;
        let pointers_at = 4 + 2 * words;
        let pointers = parse(pointers_at, 10)? as usize;
        let mut synset = Synset {
            lexfile,
            hypernyms: Vec::new(),
            instance: false,
            member_of: Vec::new(),
            adjectives: Vec::new(),
            lemmas: (0..words)
                .filter_map(|n| fields.get(4 + 2 * n))
                .map(|it| lemma_of(it))
                .collect(),
        };
        for n in 0..pointers {
            let at = pointers_at + 1 + 4 * n;
            let symbol = fields.get(at).copied();
            let pos = fields.get(at + 2).copied();
            synset.instance |= symbol == Some("@i");
            match (symbol, pos) {
                (Some("@" | "@i"), Some("n")) => synset.hypernyms.push(parse(at + 1, 10)?),
                (Some("#m"), Some("n")) => synset.member_of.push(parse(at + 1, 10)?),
                (Some("+"), Some("a" | "s")) => synset.adjectives.push(parse(at + 1, 10)?),
                _ => {}
            }
        }
        synsets.insert(offset, synset);
    }
    if synsets.is_empty() {
        bail!("data.noun holds no synset");
    }
    Ok(synsets)
}

/// A lemma as `data.*` writes it (`Korean`, `New_Yorker`, `mad(p)`) as the file keys it.
fn lemma_of(written: &str) -> String {
    let bare = written.split('(').next().unwrap_or(written);
    bare.replace('_', " ").to_lowercase()
}

/// The words of origin (see the module docs): adjectives pertaining to an instance of
/// [`ORIGIN_PLACES`], and person nouns that are members of one or derived from such an
/// adjective.
fn origin_lemmas(
    synsets: &HashMap<u32, Synset>,
    adjectives: &str,
) -> anyhow::Result<HashSet<String>> {
    fn under(
        offset: u32,
        synsets: &HashMap<u32, Synset>,
        anchors: &HashSet<u32>,
        depth: usize,
    ) -> bool {
        anchors.contains(&offset)
            || (depth < 32
                && synsets.get(&offset).is_some_and(|synset| {
                    synset.hypernyms.iter().any(|&up| under(up, synsets, anchors, depth + 1))
                }))
    }
    let anchors: HashSet<u32> = ORIGIN_PLACES.iter().map(|&(_, offset)| offset).collect();
    let place = |offset: &u32| {
        synsets.get(offset).is_some_and(|synset| {
            synset.instance && synset.hypernyms.iter().any(|&up| under(up, synsets, &anchors, 0))
        })
    };
    let mut origins = HashSet::new();
    let mut origin_adjectives = HashSet::new();
    for line in adjectives.lines().filter(|it| !it.starts_with(' ')) {
        let fields: Vec<&str> = line.split(" | ").next().unwrap_or("").split(' ').collect();
        let number = |at: usize, radix: u32| {
            fields
                .get(at)
                .and_then(|it| u32::from_str_radix(it, radix).ok())
                .with_context(|| format!("data.adj: {}", &line[..line.len().min(80)]))
        };
        let words = number(3, 16)? as usize;
        let pointers_at = 4 + 2 * words;
        let pertains = (0..number(pointers_at, 10)? as usize).any(|n| {
            let at = pointers_at + 1 + 4 * n;
            fields.get(at) == Some(&"\\")
                && fields.get(at + 2) == Some(&"n")
                && fields.get(at + 1).and_then(|it| it.parse().ok()).is_some_and(|it| place(&it))
        });
        if pertains {
            origin_adjectives.insert(number(0, 10)?);
            origins.extend((0..words).filter_map(|n| fields.get(4 + 2 * n)).map(|it| lemma_of(it)));
        }
    }
    for synset in synsets.values().filter(|it| it.lexfile == PERSON_LEXFILE && !it.instance) {
        if synset.member_of.iter().any(place)
            || synset.adjectives.iter().any(|it| origin_adjectives.contains(it))
        {
            origins.extend(synset.lemmas.iter().cloned());
        }
    }
    Ok(origins)
}

/// The synsets at or below any of `anchors` (by hypernym links).
fn closure_members(synsets: &HashMap<u32, Synset>, anchors: &[(&str, u32)]) -> HashSet<u32> {
    let anchors: HashSet<u32> = anchors.iter().map(|&(_, offset)| offset).collect();
    let mut memo: HashMap<u32, bool> = HashMap::new();
    fn below(
        offset: u32,
        synsets: &HashMap<u32, Synset>,
        anchors: &HashSet<u32>,
        memo: &mut HashMap<u32, bool>,
        depth: usize,
    ) -> bool {
        if anchors.contains(&offset) {
            return true;
        }
        if let Some(&known) = memo.get(&offset) {
            return known;
        }
        let found = depth < 64
            && synsets.get(&offset).is_some_and(|synset| {
                synset.hypernyms.iter().any(|&up| below(up, synsets, anchors, memo, depth + 1))
            });
        memo.insert(offset, found);
        found
    }
    let mut members: HashSet<u32> = synsets
        .iter()
        .filter(|(_, synset)| matches!(synset.lexfile, PERSON_LEXFILE | 14 | STATE_LEXFILE))
        .map(|(&offset, _)| offset)
        .filter(|&offset| below(offset, synsets, &anchors, &mut memo, 0))
        .collect();
    members.extend(anchors);
    members
}

/// `cntlist.rev`: how often each sense (lemma, part of speech 1..=5, sense number) was tagged.
fn tag_counts(text: &str) -> HashMap<(String, u8, usize), u32> {
    let mut counts = HashMap::new();
    for line in text.lines() {
        let mut fields = line.split(' ');
        let (Some(key), Some(number), Some(count)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Some((lemma, rest)) = key.split_once('%') else { continue };
        let pos = rest.bytes().next().map_or(0, |it| it.wrapping_sub(b'0'));
        if let (Ok(number), Ok(count)) = (number.parse(), count.parse()) {
            counts.insert((lemma.to_owned(), pos, number), count);
        }
    }
    counts
}
