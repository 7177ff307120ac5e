//! JSON schemas of the wire fields that hold a name from a closed vocabulary as a `&str` (the
//! trace's origins, reasons and agreements) or a formatted reason, for the server's OpenAPI
//! document. The tests below tie each list to the code that writes the names.

use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};

/// Node origins, as [`crate::PlanTrace`] records them.
pub(crate) const ORIGINS: [&str; 3] = ["proposed", "composite", "provider"];
/// Drop reasons, as [`crate::PlanTrace`] records them.
pub(crate) const TRACE_REASONS: [&str; 5] =
    ["unknown", "duplicate", "forbidden", "unbindable", "over_cap"];
/// Agreements of self-consistency, as [`crate::PlanTrace`] records them.
pub(crate) const AGREEMENTS: [&str; 5] =
    ["no_proposal", "single", "unanimous", "majority", "no_majority"];

fn names(names: &[&str]) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String).enum_values(Some(names.iter().copied()))
}

pub(crate) fn origin() -> ObjectBuilder {
    names(&ORIGINS)
}

pub(crate) fn trace_reason() -> ObjectBuilder {
    names(&TRACE_REASONS)
}

pub(crate) fn agreement() -> ObjectBuilder {
    names(&AGREEMENTS)
}

/// A list of param kinds' names: the built-in ones or those the registry declares.
pub(crate) fn kinds() -> ArrayBuilder {
    ArrayBuilder::new().items(
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some("^[a-z][a-z0-9_]*$"))
            .description(Some("A param kind: built in (agency, naics, uuid, clearance, compartments, uei, months) or declared in the registry's [kinds].")),
    )
}

/// The reason of a dropped proposal as the plan view writes it.
pub(crate) fn view_reason() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some("^(unknown|duplicate|over cap|forbidden: .+|unbindable: .+)$"))
}

#[cfg(test)]
mod tests {
    use crate::DropReason;

    #[test]
    fn the_vocabularies_are_the_ones_the_code_writes() {
        let reasons = [
            DropReason::Unknown,
            DropReason::Duplicate,
            DropReason::Forbidden { scopes: Vec::new() },
            DropReason::Unbindable { missing: Vec::new() },
            DropReason::OverCap,
        ];
        assert_eq!(reasons.map(|it| it.as_str()), super::TRACE_REASONS);
        use crate::consensus::Agreement;
        let agreements = [
            Agreement::NoProposal,
            Agreement::Single,
            Agreement::Unanimous,
            Agreement::Majority,
            Agreement::NoMajority,
        ];
        assert_eq!(agreements.map(Agreement::as_str), super::AGREEMENTS);
    }
}
