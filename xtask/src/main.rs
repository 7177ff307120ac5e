//! Project automation, driven by `cargo xtask`.

fn main() -> anyhow::Result<()> {
    Ok(())
}
