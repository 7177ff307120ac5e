//! Reference facts the generator draws from: real agency names and codes (USAspending's
//! authoritative agency list, DOMAIN.md "Agencies"), the 2022 NAICS codes, and the demo tenants
//! with their fixed ids.

use uuid::Uuid;

/// One sub-tier agency: (top-tier CGAC code, top-tier name, sub-tier code, sub-tier name, weight,
/// PIID office prefix). A top-tier without sub-tiers in award data names itself as its sub-tier.
pub(crate) struct AgencyRow {
    pub(crate) toptier_code: &'static str,
    pub(crate) toptier_name: &'static str,
    pub(crate) subtier_code: &'static str,
    pub(crate) subtier_name: &'static str,
    /// Relative share of awards.
    pub(crate) weight: u64,
    /// The first letters of its PIIDs (the contracting office's prefix).
    pub(crate) office: &'static str,
}

const fn agency(
    toptier_code: &'static str,
    toptier_name: &'static str,
    subtier_code: &'static str,
    subtier_name: &'static str,
    weight: u64,
    office: &'static str,
) -> AgencyRow {
    AgencyRow { toptier_code, toptier_name, subtier_code, subtier_name, weight, office }
}

const DOD: &str = "Department of Defense";
const DHS: &str = "Department of Homeland Security";
const HHS: &str = "Department of Health and Human Services";

/// The agencies, in id order (id = position + 1).
pub(crate) const AGENCIES: &[AgencyRow] = &[
    agency("097", DOD, "2100", "Department of the Army", 160, "W91"),
    agency("097", DOD, "1700", "Department of the Navy", 140, "N00"),
    agency("097", DOD, "5700", "Department of the Air Force", 120, "FA8"),
    agency("097", DOD, "97AK", "Defense Information Systems Agency", 40, "HC1"),
    agency("097", DOD, "97AS", "Defense Logistics Agency", 45, "SPE"),
    agency("097", DOD, "97AE", "Defense Advanced Research Projects Agency", 10, "HR0"),
    agency("097", DOD, "97JC", "Missile Defense Agency", 12, "HQ0"),
    agency("097", DOD, "97DH", "Defense Health Agency", 20, "HT9"),
    agency("097", DOD, "97AB", "National Geospatial-Intelligence Agency", 8, "HM0"),
    agency("097", DOD, "97DL", "Defense Intelligence Agency", 8, "HHM"),
    agency("097", DOD, "97ZS", "U.S. Special Operations Command", 12, "H92"),
    agency("097", DOD, "97F5", "Washington Headquarters Services", 10, "HQ3"),
    agency("097", DOD, "97AV", "Defense Counterintelligence and Security Agency", 5, "HS0"),
    agency("070", DHS, "7014", "U.S. Customs and Border Protection", 25, "70B"),
    agency("070", DHS, "7012", "U.S. Immigration and Customs Enforcement", 15, "70C"),
    agency("070", DHS, "7008", "U.S. Coast Guard", 20, "70Z"),
    agency("070", DHS, "7013", "Transportation Security Administration", 12, "70T"),
    agency("070", DHS, "7022", "Federal Emergency Management Agency", 12, "70F"),
    agency("070", DHS, "7003", "U.S. Citizenship and Immigration Services", 10, "70S"),
    agency("070", DHS, "7009", "U.S. Secret Service", 5, "70U"),
    agency(
        "036",
        "Department of Veterans Affairs",
        "3600",
        "Department of Veterans Affairs",
        70,
        "36C",
    ),
    agency("075", HHS, "7529", "National Institutes of Health", 30, "75N"),
    agency("075", HHS, "7523", "Centers for Disease Control and Prevention", 15, "75D"),
    agency("075", HHS, "7530", "Centers for Medicare and Medicaid Services", 15, "75F"),
    agency("075", HHS, "7527", "Indian Health Service", 8, "75H"),
    agency("089", "Department of Energy", "8900", "Department of Energy", 25, "89D"),
    agency(
        "089",
        "Department of Energy",
        "8923",
        "National Nuclear Security Administration",
        10,
        "89N",
    ),
    agency(
        "080",
        "National Aeronautics and Space Administration",
        "8000",
        "National Aeronautics and Space Administration",
        25,
        "80N",
    ),
    agency(
        "047",
        "General Services Administration",
        "4732",
        "Federal Acquisition Service",
        30,
        "47Q",
    ),
    agency("047", "General Services Administration", "4740", "Public Buildings Service", 15, "47P"),
    agency("015", "Department of Justice", "1549", "Federal Bureau of Investigation", 15, "15F"),
    agency("015", "Department of Justice", "1540", "Federal Bureau of Prisons", 8, "15B"),
    agency("019", "Department of State", "1900", "Department of State", 20, "19A"),
    agency("020", "Department of the Treasury", "2050", "Internal Revenue Service", 12, "20I"),
    agency(
        "013",
        "Department of Commerce",
        "1330",
        "National Oceanic and Atmospheric Administration",
        8,
        "13O",
    ),
    agency(
        "013",
        "Department of Commerce",
        "1341",
        "National Institute of Standards and Technology",
        5,
        "13N",
    ),
    agency("013", "Department of Commerce", "1323", "U.S. Census Bureau", 5, "13C"),
    agency("014", "Department of the Interior", "1400", "Department of the Interior", 10, "14D"),
    agency("012", "Department of Agriculture", "1200", "Department of Agriculture", 10, "12A"),
    agency("016", "Department of Labor", "1600", "Department of Labor", 5, "16L"),
    agency(
        "069",
        "Department of Transportation",
        "6920",
        "Federal Aviation Administration",
        10,
        "69F",
    ),
    agency("091", "Department of Education", "9100", "Department of Education", 4, "91E"),
    agency(
        "086",
        "Department of Housing and Urban Development",
        "8600",
        "Department of Housing and Urban Development",
        3,
        "86H",
    ),
    agency(
        "068",
        "Environmental Protection Agency",
        "6800",
        "Environmental Protection Agency",
        4,
        "68E",
    ),
    agency(
        "073",
        "Small Business Administration",
        "7300",
        "Small Business Administration",
        2,
        "73S",
    ),
    agency(
        "028",
        "Social Security Administration",
        "2800",
        "Social Security Administration",
        5,
        "28S",
    ),
    agency(
        "031",
        "Nuclear Regulatory Commission",
        "3100",
        "Nuclear Regulatory Commission",
        1,
        "31N",
    ),
    agency("049", "National Science Foundation", "4900", "National Science Foundation", 2, "49F"),
    agency(
        "024",
        "Office of Personnel Management",
        "2400",
        "Office of Personnel Management",
        3,
        "24P",
    ),
    agency(
        "072",
        "Agency for International Development",
        "7200",
        "Agency for International Development",
        4,
        "72A",
    ),
    agency(
        "011",
        "Executive Office of the President",
        "1100",
        "Executive Office of the President",
        1,
        "11E",
    ),
    agency(
        "096",
        "Corps of Engineers - Civil Works",
        "9600",
        "Corps of Engineers - Civil Works",
        8,
        "W9C",
    ),
];

/// NAICS codes common in federal services and products, with their relative share of awards.
/// Every other 2022 code gets weight 1, so the market has a long tail.
pub(crate) const FEDERAL_NAICS: &[(&str, u64)] = &[
    ("541512", 3000),
    ("541511", 1800),
    ("541330", 2000),
    ("541519", 1200),
    ("541611", 1000),
    ("541715", 900),
    ("541513", 600),
    ("541614", 300),
    ("541618", 300),
    ("541690", 400),
    ("541990", 500),
    ("541380", 150),
    ("541930", 80),
    ("518210", 500),
    ("513210", 200),
    ("517111", 150),
    ("517112", 100),
    ("517410", 80),
    ("517810", 120),
    ("561210", 700),
    ("561110", 200),
    ("561320", 150),
    ("561611", 100),
    ("561612", 250),
    ("561621", 100),
    ("611430", 150),
    ("611420", 50),
    ("334111", 150),
    ("334220", 200),
    ("334511", 250),
    ("336411", 300),
    ("336414", 150),
    ("423430", 300),
    ("811210", 200),
    ("236220", 600),
    ("237310", 300),
    ("238210", 200),
    ("562910", 150),
    ("621111", 100),
    ("624230", 30),
];

/// The 2022 six-digit NAICS codes with titles (Census, as published in owings1/naics).
pub(crate) const NAICS_CSV: &str = include_str!("../../../fixtures/registry/naics2022.csv");

/// The parsed NAICS list: (code, title), in file order.
pub(crate) fn naics_codes() -> Vec<(&'static str, &'static str)> {
    NAICS_CSV
        .lines()
        .skip(1)
        .filter_map(|line| {
            let (code, title) = line.split_once(',')?;
            Some((code, title.trim_matches('"')))
        })
        .collect()
}

/// Set-aside codes (USAspending `type_set_aside_map`) a small business may win under.
pub(crate) const SMALL_SET_ASIDES: &[&str] = &["SBA", "8A", "8AN", "HZC", "SDVOSBC", "WOSB"];

/// Words for made-up vendor names.
pub(crate) const NAME_FIRST: &[&str] = &[
    "Apex",
    "Blue Ridge",
    "Cardinal",
    "Summit",
    "Ironclad",
    "Keystone",
    "Liberty",
    "Meridian",
    "Northstar",
    "Patriot",
    "Quantum",
    "Redstone",
    "Sentinel",
    "Trident",
    "Vanguard",
    "Harbor",
    "Granite",
    "Falcon",
    "Evergreen",
    "Cobalt",
    "Bluewater",
    "Silverline",
    "Anchor",
    "Pinnacle",
    "Beacon",
    "Crestview",
    "Delta",
    "Eagle",
    "Frontier",
    "Horizon",
    "Juniper",
    "Lakeshore",
    "Monument",
    "Oakridge",
    "Potomac",
    "Shenandoah",
    "Tidewater",
    "Chesapeake",
    "Alder",
    "Bastion",
];
/// Second words for made-up vendor names.
pub(crate) const NAME_SECOND: &[&str] = &[
    "Federal",
    "Defense",
    "Systems",
    "Analytics",
    "Technologies",
    "Engineering",
    "Mission",
    "Cyber",
    "Data",
    "Logistics",
    "Research",
    "Integration",
    "Consulting",
    "Aerospace",
    "Digital",
    "Security",
    "Health",
    "Cloud",
    "Networks",
    "Solutions",
];
/// Corporate suffixes.
pub(crate) const NAME_SUFFIX: &[&str] =
    &["LLC", "Inc.", "Corporation", "Group LLC", "Partners LLC", "Co.", "Holdings Inc."];

/// Labor categories of bench candidates.
pub(crate) const LABOR_CATEGORIES: &[&str] = &[
    "Systems Engineer",
    "Software Developer",
    "Cyber Security Analyst",
    "Network Engineer",
    "Intelligence Analyst",
    "Program Manager",
    "Data Scientist",
    "Cloud Architect",
    "Linguist",
    "Help Desk Technician",
];

/// Skills of bench candidates.
pub(crate) const SKILLS: &[&str] = &[
    "Kubernetes",
    "SIGINT analysis",
    "Python",
    "Java",
    "AWS",
    "Azure",
    "Splunk",
    "RMF",
    "Linux",
    "Geospatial analysis",
    "Arabic",
    "Mandarin",
    "Network forensics",
    "Terraform",
    "Oracle",
];

/// A demo tenant: fixed id and name, and its share of the bench in percent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoTenant {
    /// The tenant's fixed id.
    pub id: Uuid,
    /// Its name.
    pub name: &'static str,
    /// Its share of all bench candidates, in percent.
    pub bench_percent: u64,
}

/// The three demo tenants: a large, a medium and a small bench.
pub const DEMO_TENANTS: [DemoTenant; 3] = [
    DemoTenant {
        id: Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_000a),
        name: "Northwind Cleared Staffing",
        bench_percent: 60,
    },
    DemoTenant {
        id: Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_000b),
        name: "Harbor Point Defense",
        bench_percent: 30,
    },
    DemoTenant {
        id: Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_000c),
        name: "Cedar Analytics",
        bench_percent: 10,
    },
];

/// A demo requirement, fixed: its predecessor award is generated to match it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoRequirement {
    /// The requirement's fixed id.
    pub id: Uuid,
    /// Index into [`DEMO_TENANTS`].
    pub tenant: usize,
    /// Its title.
    pub title: &'static str,
    /// The agency's canonical name (a sub-tier name in the agency table).
    pub agency: &'static str,
    /// The NAICS code.
    pub naics: &'static str,
    /// The required clearance (`confidential`, `secret`, `top_secret`, `ts_sci`).
    pub clearance: &'static str,
    /// The required compartments, sorted.
    pub compartments: &'static [&'static str],
    /// Seats to fill.
    pub seats: i32,
    /// Days from "today" to the due date.
    pub due_in_days: i64,
}

const fn requirement_id(tenant: u128, number: u128) -> Uuid {
    Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_0000 | (tenant << 16) | number)
}

/// Every demo requirement. Ids read `00000000-0000-4000-8000-0000000T000N`: tenant letter T
/// (a, b, c), number N.
pub const DEMO_REQUIREMENTS: [DemoRequirement; 9] = [
    DemoRequirement {
        id: requirement_id(0xa, 1),
        tenant: 0,
        title: "Army enterprise cloud modernization",
        agency: "Department of the Army",
        naics: "541512",
        clearance: "ts_sci",
        compartments: &["SI", "TK"],
        seats: 12,
        due_in_days: 45,
    },
    DemoRequirement {
        id: requirement_id(0xa, 2),
        tenant: 0,
        title: "DISA network operations support",
        agency: "Defense Information Systems Agency",
        naics: "541513",
        clearance: "secret",
        compartments: &[],
        seats: 20,
        due_in_days: 60,
    },
    DemoRequirement {
        id: requirement_id(0xa, 3),
        tenant: 0,
        title: "NGA geospatial analytics",
        agency: "National Geospatial-Intelligence Agency",
        naics: "541511",
        clearance: "ts_sci",
        compartments: &["G", "SI", "TK"],
        seats: 6,
        due_in_days: 90,
    },
    DemoRequirement {
        id: requirement_id(0xb, 1),
        tenant: 1,
        title: "Navy shipboard cyber assessments",
        agency: "Department of the Navy",
        naics: "541330",
        clearance: "top_secret",
        compartments: &[],
        seats: 5,
        due_in_days: 30,
    },
    DemoRequirement {
        id: requirement_id(0xb, 2),
        tenant: 1,
        title: "CBP biometrics platform sustainment",
        agency: "U.S. Customs and Border Protection",
        naics: "541512",
        clearance: "secret",
        compartments: &[],
        seats: 10,
        due_in_days: 75,
    },
    DemoRequirement {
        id: requirement_id(0xb, 3),
        tenant: 1,
        title: "Air Force mission systems engineering",
        agency: "Department of the Air Force",
        naics: "541715",
        clearance: "ts_sci",
        compartments: &["SI"],
        seats: 4,
        due_in_days: 120,
    },
    DemoRequirement {
        id: requirement_id(0xc, 1),
        tenant: 2,
        title: "FBI investigative data analytics",
        agency: "Federal Bureau of Investigation",
        naics: "541511",
        clearance: "ts_sci",
        compartments: &["SI", "TK"],
        seats: 3,
        due_in_days: 50,
    },
    DemoRequirement {
        id: requirement_id(0xc, 2),
        tenant: 2,
        title: "NASA ground systems software",
        agency: "National Aeronautics and Space Administration",
        naics: "541512",
        clearance: "secret",
        compartments: &[],
        seats: 6,
        due_in_days: 100,
    },
    DemoRequirement {
        id: requirement_id(0xc, 3),
        tenant: 2,
        title: "Army logistics analytics",
        agency: "Department of the Army",
        naics: "541614",
        clearance: "secret",
        compartments: &[],
        seats: 8,
        due_in_days: 65,
    },
];

/// The position of the sub-tier agency named `name` in [`AGENCIES`].
pub(crate) fn agency_index(name: &str) -> Option<usize> {
    AGENCIES.iter().position(|row| row.subtier_name == name)
}
