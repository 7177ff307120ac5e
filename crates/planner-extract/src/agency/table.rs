//! The agency dictionary: canonical names and the ways people write them.
//!
//! Built from DOMAIN.md "Agencies: toptier names, CGAC codes, acronyms" and the reference
//! registry's acronym list. Military departments and other subtiers keep their own canonical
//! name ("Army" is the Department of the Army, not the Department of Defense).
//!
//! Alias spelling: lower-case words separated by single spaces. A leading marker sets how
//! strictly the case of a one-word alias is checked, because some acronyms are also common words:
//! `=` every letter upper-case (`VA`, not `va`); `^` first and last letter upper-case (`DoD`,
//! `DOE`, not `doe`); `~` capitalised, not the first word of a sentence and not followed by
//! "of" or "local" (`State`). Without a marker the alias matches in any case. Inside quotes any
//! case matches. Every canonical name is an alias too; aliases starting with "department of"
//! also match with "dept" and with or without "the"; every alias without a marker also matches
//! after "U.S.", "US" or "United States".

/// `(canonical name, aliases)` in a fixed order; the order is the dictionary's public order.
pub(crate) const AGENCIES: &[(&str, &[&str])] = &[
    ("Department of Defense", &["dod", "defense department", "department of defence"]),
    ("Department of the Army", &["army", "army department"]),
    ("Department of the Navy", &["navy", "=don", "=usn", "navy department"]),
    (
        "Department of the Air Force",
        &["air force", "airforce", "usaf", "=daf", "air force department"],
    ),
    ("U.S. Marine Corps", &["marine corps", "marines", "usmc"]),
    ("Department of Homeland Security", &["dhs", "homeland security"]),
    ("Department of Veterans Affairs", &["=va", "veterans affairs", "veterans administration"]),
    ("Department of Health and Human Services", &["hhs", "health and human services", "dhhs"]),
    ("Department of Energy", &["^doe", "energy department"]),
    ("National Aeronautics and Space Administration", &["nasa"]),
    ("General Services Administration", &["gsa"]),
    ("Department of Justice", &["doj", "justice department"]),
    ("Department of State", &["~state", "=dos", "state department"]),
    ("Department of the Treasury", &["treasury", "=treas", "treasury department"]),
    ("Department of Commerce", &["=doc", "commerce department"]),
    ("Department of the Interior", &["=doi", "interior department"]),
    ("Department of Agriculture", &["usda", "agriculture department"]),
    ("Department of Labor", &["=dol", "labor department"]),
    ("Department of Transportation", &["=dot", "transportation department"]),
    ("Department of Education", &["=ed", "education department"]),
    ("Department of Housing and Urban Development", &["hud", "housing and urban development"]),
    ("Environmental Protection Agency", &["epa"]),
    ("Small Business Administration", &[]),
    ("Social Security Administration", &["=ssa"]),
    ("Nuclear Regulatory Commission", &["nrc"]),
    ("National Science Foundation", &["nsf"]),
    ("Office of Personnel Management", &["opm"]),
    ("Agency for International Development", &["usaid"]),
    ("Executive Office of the President", &["eop"]),
    (
        "Corps of Engineers - Civil Works",
        &[
            "usace",
            "army corps of engineers",
            "corps of engineers",
            "corps of engineers civil works",
        ],
    ),
    ("Defense Information Systems Agency", &["disa"]),
    ("Defense Logistics Agency", &["dla"]),
    ("Defense Advanced Research Projects Agency", &["darpa"]),
    ("Missile Defense Agency", &["=mda"]),
    ("Defense Health Agency", &["dha"]),
    (
        "National Geospatial-Intelligence Agency",
        &["nga", "national geospatial intelligence agency"],
    ),
    ("Defense Intelligence Agency", &["=dia"]),
    ("National Security Agency", &["nsa", "nsa css"]),
    ("U.S. Special Operations Command", &["ussocom", "socom", "special operations command"]),
    ("Washington Headquarters Services", &["whs"]),
    ("Defense Finance and Accounting Service", &["dfas"]),
    ("Defense Counterintelligence and Security Agency", &["dcsa"]),
    ("U.S. Customs and Border Protection", &["cbp", "customs and border protection"]),
    ("U.S. Immigration and Customs Enforcement", &["=ice", "immigration and customs enforcement"]),
    ("U.S. Coast Guard", &["uscg", "coast guard"]),
    ("Transportation Security Administration", &["tsa"]),
    ("Federal Emergency Management Agency", &["fema"]),
    (
        "U.S. Citizenship and Immigration Services",
        &["uscis", "citizenship and immigration services"],
    ),
    ("U.S. Secret Service", &["usss", "secret service"]),
    ("National Institutes of Health", &["nih"]),
    ("Centers for Disease Control and Prevention", &["cdc"]),
    ("Centers for Medicare and Medicaid Services", &["=cms"]),
    ("Indian Health Service", &["ihs"]),
    ("National Nuclear Security Administration", &["nnsa"]),
    ("Federal Bureau of Investigation", &["fbi"]),
    ("Internal Revenue Service", &["irs"]),
    ("National Oceanic and Atmospheric Administration", &["noaa"]),
    ("National Institute of Standards and Technology", &["nist"]),
    ("Federal Aviation Administration", &["faa"]),
    ("Central Intelligence Agency", &["cia"]),
];
