//! Rebuilds the crate when a migration is added or changed, so `MIGRATOR` embeds every file.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
