//! Requirement ids: hyphenated UUIDs in any case, canonical lower case.

use planner_registry::{ParamKind, Value};

use crate::scan::{Hit, Scan};
use crate::token::HEX;

const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];

/// Claims every `8-4-4-4-12` hexadecimal group sequence joined by single hyphens.
pub(crate) fn claim(scan: &mut Scan<'_>, hits: &mut Vec<Hit>) {
    let mut i = 0;
    while i + GROUPS.len() <= scan.len() {
        if scan.raw(i).is_some_and(|t| t.len() == 8 && t.is(HEX)) && is_uuid_at(scan, i) {
            let last = i + GROUPS.len() - 1;
            let span = scan.span(i, last);
            let value = span.text(scan.text()).to_ascii_lowercase();
            hits.push(Hit::one(last + 1, ParamKind::Uuid, Value::Text(value), span));
            scan.claim(i, last + 1);
            i = last + 1;
        } else {
            i += 1;
        }
    }
}

fn is_uuid_at(scan: &Scan<'_>, i: usize) -> bool {
    GROUPS.iter().enumerate().all(|(n, &len)| {
        scan.tok(i + n).is_some_and(|t| t.len() == len && t.is(HEX))
            && (n == 0 || scan.gap_before(i + n) == "-")
    }) && !scan.gap_before(i).ends_with('-')
        && !scan.gap_after(i + GROUPS.len() - 1).starts_with('-')
}
