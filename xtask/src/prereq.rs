//! What a test run can and cannot run on this machine, decided before the tests start.
//!
//! A test whose prerequisite is missing is never run and counted as passed: the tests fail when
//! they cannot run their scenario, and `cargo xtask test`/`ci` exclude them up front with a
//! nextest filter instead, naming each one with its reason in the run's last lines. Under
//! `CI=true` nothing this machine kind can provide may be missing: a Docker engine is the only
//! prerequisite a machine may lack (then the Docker tests are listed as not run); chromium and a
//! PostgreSQL with `pg_stat_statements` preloaded must be there, or the run fails.

use std::fmt;

/// One check the run did not run, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotRun {
    /// What was not run: a step, or tests named by a nextest filter.
    pub(crate) what: String,
    /// The nextest filter that excludes it (`None` for a step outside nextest).
    pub(crate) filter: Option<&'static str>,
    /// Why it was not run, and how to run it.
    pub(crate) reason: String,
}

/// The tests that need a Docker engine with `planner-postgres:15` and `planner:latest`.
pub(crate) const DOCKER_TESTS: &str =
    "package(planner-tests) & (test(/^faults::/) | test(/^scale_out::/))";
/// The web page test, driving a headless chromium.
pub(crate) const CHROMIUM_TESTS: &str = "package(planner-tests) & test(/^page::/)";
/// The injection test's statement check, reading `pg_stat_statements`.
pub(crate) const STATEMENT_TESTS: &str =
    "package(planner-tests) & test(/^injection::.*registry_statements/)";

/// The run's exclusions, in the order they were found.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub(crate) not_run: Vec<NotRun>,
}

impl Plan {
    /// Records that `what` does not run for `reason`. Under CI a missing prerequisite that this
    /// machine kind can have is an error instead (`required`).
    pub(crate) fn exclude(
        &mut self,
        what: &str,
        filter: Option<&'static str>,
        reason: String,
        required: bool,
    ) -> anyhow::Result<()> {
        if required && ci() {
            anyhow::bail!("CI must run {what}, but {reason}");
        }
        self.not_run.push(NotRun { what: what.to_owned(), filter, reason });
        Ok(())
    }

    /// The nextest arguments that leave the excluded tests out (none when nothing is).
    pub(crate) fn nextest_filter(&self) -> Option<String> {
        let filters: Vec<&str> = self.not_run.iter().filter_map(|it| it.filter).collect();
        (!filters.is_empty()).then(|| format!("not ({})", filters.join(" | ")))
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "xtask: not run: {}", self.not_run.len())?;
        for it in &self.not_run {
            writeln!(f, "xtask:   {}: {}", it.what, it.reason)?;
        }
        Ok(())
    }
}

/// Whether this is a CI run (`CI` set to anything but `false` or empty).
pub(crate) fn ci() -> bool {
    std::env::var("CI").is_ok_and(|it| !it.is_empty() && it != "false")
}

/// Chromium as the page test looks for it: `PLANNER_CHROMIUM`, else `chromium` or
/// `chromium-browser` on `PATH`.
pub(crate) fn has_chromium() -> bool {
    if std::env::var_os("PLANNER_CHROMIUM").is_some() {
        return true;
    }
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path)
            .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
            .any(|candidate| candidate.is_file())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_excludes_every_listed_test_and_no_step() {
        let mut plan = Plan::default();
        assert_eq!(plan.nextest_filter(), None);
        plan.not_run.push(NotRun {
            what: "llm-check".into(),
            filter: None,
            reason: "no server".into(),
        });
        assert_eq!(plan.nextest_filter(), None);
        plan.not_run.push(NotRun {
            what: "docker".into(),
            filter: Some(DOCKER_TESTS),
            reason: "no engine".into(),
        });
        plan.not_run.push(NotRun {
            what: "page".into(),
            filter: Some(CHROMIUM_TESTS),
            reason: "no chromium".into(),
        });
        assert_eq!(
            plan.nextest_filter().unwrap(),
            format!("not ({DOCKER_TESTS} | {CHROMIUM_TESTS})")
        );
        let text = plan.to_string();
        assert!(text.starts_with("xtask: not run: 3\n"), "{text}");
        assert!(text.contains("xtask:   page: no chromium\n"), "{text}");
    }
}
