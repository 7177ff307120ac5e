//! The acquisition agent: profiles, each node alone, whole flows, PostgreSQL and the model.

mod fixtures;
mod flows;
mod model;
mod nodes;
mod postgres;
mod profile;
