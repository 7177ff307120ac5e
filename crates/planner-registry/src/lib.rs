//! The closed registry of SQL intents.
//!
//! A registry is data: a declarative TOML file loaded, validated and frozen at start. The model
//! that proposes plans can only name intents of this closed set; every SQL statement in it has
//! passed a guard built on a real SQL parser; every argument is a typed parameter bound by
//! placeholder. This crate also owns the closed set of parameter kinds ([`ParamKind`]) and their
//! canonical values ([`Value`]), the vocabulary shared by the extractors, the plan grammar and
//! the executors.
//!
//! **Architecture invariant:** this crate does no I/O and depends on no other workspace crate.
//! The caller reads the file and hands its text to [`Registry::from_toml`]. After loading, the
//! registry is frozen and shared (a cheap [`Clone`] of an `Arc`); intents are addressed by
//! [`IntentId`], obtained once at the boundary with [`Registry::intent_id`].
//!
//! # The registry file format
//!
//! A registry file has five parts, in any order: `[registry]` (settings), `[planes]`, `[kinds]`
//! (the kinds of value its params take, below; optional), `[params]` and the `[[intent]]` array. Unknown keys are errors. Loading reports every problem it finds at
//! once, each with its file, line and column where known.
//!
//! ## `[registry]`: settings
//!
//! | key | type | meaning |
//! |---|---|---|
//! | `node_cap` | integer 1..=64 | the most nodes a plan may have (the reference registry uses 6) |
//! | `fan_out` | integer 1..=100, default 10 | the most values one edge fans out to: when an upstream column gives several distinct values, the dependant runs once per value (in the upstream's row order, each checked as a question's value would be), up to this many; its runs' rows are composed into one table (with a last column named after the param, holding each row's value, when no column of the dependant's own shows it), the answer says how many values ran and how many were left out, and the audit row counts each run. `1` runs a dependant only on a single value |
//! | `default_k` | integer >= 2 | suppression threshold for count intents that do not set `k` (11) |
//! | `allowed_schemas` | array of strings | the only schemas SQL may name; every table must be written `schema.table` with one of these (CTE names excepted). `eeo`, `pg_catalog`, `information_schema` and `pg_toast` are never allowed |
//! | `scopes` | array of strings | the scope names intents and planes may require (for example `bench`) |
//! | `as_of` | table, optional | `{ plane = "<plane>", sql = "<query>" }`: the query that reads the date the data was taken, its own "today" (one row, one `date` column, no params; guarded like an intent's SQL on that plane, which may not count). Answers state each intent window as ending or starting at that date |
//!
//! ## `[planes]`: how an intent runs
//!
//! Each key is a plane name; its value is a table:
//!
//! | key | type | meaning |
//! |---|---|---|
//! | `tenant` | bool, required | rows belong to a tenant: run in a tenant transaction with row-level security |
//! | `counts` | bool, default `false` | counts only: every intent of the plane needs a `suppression` spec and runs through the suppressing executor |
//! | `scope` | string, optional | the scope every intent of the plane needs (one of `registry.scopes`) |
//! | `schemas` | array of strings, required | the schemas the plane's intents may read, each one of `registry.allowed_schemas`: a table or function of any other schema is rejected |
//! | `workforce` | bool, optional | `true`: its rows are the user's workforce (employees, candidates, drivers, agents): an intent that returns them ordered by a measure or cut to a top N (`ORDER BY`, `LIMIT`, `FETCH`, a ranking window function) is rejected unless the plane counts. Ranking or scoring individual workers is an automated employment decision. `false`: its rows are no workforce, whatever its `people` nouns say elsewhere (a cooperative's member farmers, a marketplace's drivers who are its customers). Left out, `planner registry check` warns about an intent of the plane that ranks rows its name says are workers, until the file says either |
//! | `people` | array of strings, default empty | nouns for the people the plane's rows are about (`customer`, `shopper`): the screen refuses questions about their protected attributes, as it does for count planes' counted columns. Ranking them is the plane's business (top customers), unless the plane is a workforce or, `workforce` left out, the noun names people at work (`farmer`, `surgeon`): then a ranking of them is refused |
//!
//! The executor runs each plane as a database role of its kind (see planner-exec's `Reader`),
//! which holds SELECT on the matching schemas only: the same boundary, enforced a second time by
//! PostgreSQL. A team's own schema grants those roles itself (`planner db migrate` creates them):
//!
//! | plane | role | what the schema grants it |
//! |---|---|---|
//! | `counts = true` (tenant or not) | `planner_read_bench` | `USAGE` on the plane's schemas, `SELECT` on their tables |
//! | `tenant = true` | `planner_read_tenant` | the same |
//! | neither | `planner_read_public` | the same |
//!
//! A tenant plane's rows carry the tenant's id (`admin.tenant (id)`, created by `planner keys
//! create --tenant NAME --new-tenant` or an `INSERT` by the owner), and each of its tables
//! enables and forces row-level security with a policy on the setting the executor makes for
//! the question's tenant in every transaction:
//! `USING (tenant_id = NULLIF(current_setting('planner.tenant', true), '')::uuid)`. A question
//! asked for no tenant runs no intent of a tenant plane (the answer says why).
//! `fixtures/domains/property/migrations/0001_schema.sql` has such a schema.
//! ## `[kinds]`: parameter kinds a file declares
//!
//! Besides the built-in kinds, a file may declare its own, each an instance of a generic
//! extractor type ([`KindType`]), as `[kinds.<name>]` with `type`, an optional `label` (the noun of
//! a clarifying question, "Which region do you mean?") and the type's keys. A built-in kind may
//! be declared too, with that kind's type (`agency` and `clearance` dictionaries, `naics` and
//! `uei` codes, `uuid`, a `compartments` list, `months` a duration in months): it keeps its name
//! and meaning, and its values are extracted by the declaration instead of the built-in
//! extractor. The reference registry declares all seven ([`reference`]).
//!
//! | type | keys | canonical value |
//! |---|---|---|
//! | `dictionary` | `values = [{ value, aliases }]` or `csv` (header `value,aliases`, aliases split by `\|`); `ordered`; spelling rules `prefixes` (words that may come before an alias of any case: "U.S."), `variants = { word = ["other"] }` (a word an alias may be written with instead: "dept" for "department") and `optional` words an alias may leave out ("the") | the value (text), spanning its own words ("gold or above" reads as `gold`); an alias's words may be written joined by blanks, dots, hyphens or slashes ("ts sci" matches "TS/SCI"); a spelling the rules make never takes an alias written for another value; an alias's last word is read in the plural in `s` and, ending in such a plural, in the singular too ("bean contracts" of `beans`), as for lists |
//! | `code` | `shape` (`A` letter, `9` digit, `X` either, other characters literal, `\` before a character makes it literal: `'R\A-9999999'`, in single quotes, as TOML keeps a backslash there); optional `csv` (header `code,title`), `cues` and `bare = "mixed"` | the code, upper case; taken when listed or after a cue, or named by its `csv` title of two words or more written in quotes ("'Copper Kettle'"; a title several codes share, a part in brackets aside, asks which), or (with `bare = "mixed"`) when it holds both letters and digits, as identifiers no word is spelled like do (a UEI); a shape's literal letters and digits count, so every code of `SH-999999` mixes and "Where is SH-107919?" needs no cue |
//! | `list` | `values` or `csv`, and `context` words | the values right after a context word or right before one ("SI, TK and G compartments"), two or more in capitals joined by slashes ("SI/TK"), or, anywhere, values whose words name things: an alias ending in a word English uses mostly as a noun or does not know, written with a lower-case letter ("mechanics", "recycling", "Tdap"; not "open" or "online", which qualify, nor "HCS", a code); values said in several places of one question are one list; in declared order (`text[]`). No value or alias may hold a context word ("family rooms" would take "rooms" from every other value) |
//! | `uuid` | | lower-case UUID |
//! | `duration` | `unit` (`day` or `month`) | an integer ("last 2 weeks" is 14 days) |
//! | `date` | | `YYYY-MM-DD`; a day a `date_range` kind reads ("as of 2025-03-01") is read as this date too, where the question gives one such day |
//! | `date_range` | optional `fiscal_year_start` (month; left out, a fiscal year is the calendar year: "FY2024" is 2024), `relative` | `[start, end)` as two ISO days, open ends `-infinity`, `infinity` (`text[]`); a relative period as two relative bounds (below) |
//! | `integer` | `cues` | the number right after a cue ("top 5") |
//! | `quoted_text` | `max_len` | the text inside quotes |
//!
//! An alias's leading marker restricts case: `=` every letter upper case, `^` first and last
//! letter upper case, `~` capitalised and not the first word of a sentence; inside quotes any case
//! matches. A value takes the same markers (`{ value = "=SEA" }` is the value `SEA`, matched in
//! capitals only). Without a marker, a value or alias matches in any case, except one ordinary
//! English word written in capitals (`SEA`, `DEN`, `LAX`: the words of `data/short-english.txt`,
//! [`ordinary_in_capitals`]), which matches only in capitals, so that "by sea", "the den" and "lax
//! rules" name no hub; a dictionary or list kind with `case = "any"` matches every unmarked value
//! and alias in any case. An alias of digits alone once its punctuation is dropped (`#5`) is an
//! error: it would read every such number of a question. An alias written in mixed case after
//! `=` (`=RTDs`, `=FeLV`) is an error: it would match only in capitals ("RTDS"), never as
//! written; the error says which marker fits (`^FeLV`), or to drop the `=`.
//!
//! An alias is claimed by one value; a name several values share (a city with two branches)
//! is written `?` first on each of them (`"?Denver"` on `den_airport` and on `den_union`, the
//! case markers after it): a question saying it names none of them alone, and the user is asked
//! which, each value by its first alias as written ("Which branch do you mean: Denver airport
//! (den_airport) or Denver Union Station (den_union)?"), even where the param is optional. The
//! same alias written on two values without `?` is an error.
//!
//! **Relative periods.** A `date_range` kind of a registry with an `as_of` query also reads
//! periods relative to the data's date: "last year", "this year", "year to date" (and "YTD"),
//! "last quarter", "this quarter", "last month", "yesterday", "today", and, when no `duration`
//! kind reads those words, "last week", "this week" (calendar weeks, Monday first), "the past 6
//! months", "the last 2 years", "the past 14 days" (where a `duration` kind is declared, those
//! words are its length, "last week" its 7 days, and, where the question says no other period,
//! also the period they end at the data's date: an intent taking a period and no length binds
//! that, one taking the length the days), and a month or run of months said without its year ("in August",
//! "during July and August", "last March": the latest one the data has reached, "last" the
//! latest before the data's month; "since August": from the latest August on, open-ended)
//! where the question says no other period of the kind.
//! `relative = false` turns this off; `relative = true` without `as_of` is
//! an error. Such a value is two relative bounds, `@` and an anchor (`Y` the first day of the
//! data date's year, `Q` of its quarter, `M` of its month, `W` of its week, `D` the date itself,
//! `L8` the latest August begun by it, `P8` the latest August before its month)
//! followed by offsets in months or days: last year is
//! `["@Y-12m", "@Y"]`, the year to date `["@Y", "@D+1d"]`, the past 6 months
//! `["@D+1d-6m", "@D+1d"]`. A param's `default` may be written so too where the registry has
//! `as_of` (`default = ["@D-6d", "@D+1d"]`: the week up to the data's date). Plans show the
//! bounds as read; when a plan runs, the engine reads
//! the `as_of` date first and binds the resolved ISO days ([`resolve_period`]), so the same
//! question over the same data always means the same days, and the answer says them ("\"last
//! year\" is read as 2024-01-01 to 2024-12-31, by the data's date 2025-06-30"). A calendar
//! period is read as a period even where a `duration` kind would read the same words as a length
//! ("last year" is not 365 days). CSV files are read through the caller ([`Registry::from_toml_with`]); this crate does
//! no I/O. Loading reports every mistake with its place: an alias claimed by two values, a CSV that
//! does not load or whose code does not have the shape, a shape no code can match, a key the
//! type does not take, a built-in kind declared with another type. `[registry] help` is one sentence on
//! what the registry answers, told to a question nothing can answer.
//!
//! ## `[params]`: the parameters, declared once
//!
//! Each key is a param name (lower `snake_case`); its value is a table with `kind` (one of
//! `agency`, `naics`, `uuid`, `clearance`, `compartments`, `uei`, `months`, see [`ParamKind`], or a
//! kind of `[kinds]`) and,
//! for the enum kinds `clearance` and `compartments`, `values` (the allowed canonical values, in
//! order), and an optional `role` (below). Each kind may be declared by at most one param
//! without a role and one per role: the extractors produce one value per kind (and per role),
//! and a param's value is looked up by its kind and role.
//!
//! ## Roles: two params of one kind
//!
//! A lane runs from one hub to another: two params of one kind, told apart by which end of the
//! pair each is. A param declares its end with `role`, one of a closed set ([`Role`]): `from`,
//! the source end, and `to`, the goal end.
//!
//! ```text
//! [params]
//! hub = { kind = "hub" }                             # what happens at one hub
//! origin = { kind = "hub", role = "from" }
//! destination = { kind = "hub", role = "to" }
//!
//! [[intent]]
//! name = "lane_volume"
//! params = [{ name = "origin" }, { name = "destination" }]
//! # ...
//! ```
//!
//! The question says which end each value is with English's source and goal words ("from
//! Seattle to Denver", "Seattle to Denver", "between Seattle and Denver", "out of Reno", "into
//! Denver": planner-extract's `roles` module), and a param with a role binds the value given
//! its end; an intent's only param of its kind also binds a value the question gives no end
//! ("top destinations for Reno"). A param without a role binds as any param does, so two
//! values of its kind leave it unbound even when their roles differ. A question that gives two
//! values of the kind without saying which end each is gets a clarifying question naming them
//! and the fix (say "from Seattle to Denver"). Loading checks:
//!
//! - an intent may hold two params of one kind only when both carry different roles (a role
//!   param and a param without one of the same kind in one intent are rejected);
//! - a role is one of `from` and `to`; any other string is rejected, naming them;
//! - a role suits only a kind whose values name one thing that can be an end ([`Role::suits`]):
//!   a dictionary, a code or quoted text (the built-in `agency`, `clearance`, `naics`, `uei`).
//!   Numbers and lengths (`integer`, `duration`, `months`) are quantities, where "from 3 to 5"
//!   is a range, not two ends; a `date` or `date_range` reads "from March to May" as one period
//!   itself; a `list` (`compartments`) gathers several values into one set, in its
//!   dictionary's order rather than the question's; and a `uuid` is an opaque record id that no
//!   question routes between. Each is rejected with its place.
//!
//! ## `[[intent]]`: the intents, in order
//!
//! The declaration order is the registry order: plans list their nodes in it. A query intent
//! has these keys:
//!
//! | key | type | meaning |
//! |---|---|---|
//! | `name` | string, required | unique lower `snake_case` name, `[a-z][a-z0-9_]*`, at most 64 bytes |
//! | `description` | string, required | one sentence for people and proposers |
//! | `keywords` | array of strings, default empty | words that point at this intent |
//! | `examples` | array of strings, default empty | questions this intent answers, as its users ask them (each non-empty, at most 500 bytes, no repeats): the offline proposer learns the domain's own phrasings from them, and `planner fit` proposes them from a labelled corpus. The values an example gives ("in 2024", a code) are read as values, not as words of the intent |
//! | `plane` | string, required | one of `[planes]` |
//! | `scope` | string, optional | a scope the intent needs beyond its plane's (one of `registry.scopes`) |
//! | `params` | array of tables, default empty | the params, in placeholder order: entry *n* binds `$n` |
//! | `sql` | string, required | one PostgreSQL query with placeholders `$1..$n` |
//! | `columns` | array of tables, required | the output columns, in `SELECT` order: as many as the `SELECT` returns, each named as PostgreSQL names it there (its alias, else the column's or the function's name; an expression without an alias is not judged) |
//! | `suppression` | table | required when the plane has `counts = true`, forbidden otherwise |
//! | `window` | string, optional | `past` or `ahead`: the rows cover the length the intent's `months` param (or a param of a `duration` kind, in that kind's unit) binds, up to or from the data's "today" (`registry.as_of`); answers say so ("over the 14 days to 2025-12-31"). The intent needs such a param |
//!
//! A `params` entry is `{ name = "<param>" }` for a required param, or
//! `{ name = "<param>", default = <value> }` for an optional one. A param whose kind has an
//! integer value (`months`, and the declared `duration` and `integer` types) may add `min` and
//! `max` (inclusive), both or neither, `min` not above `max`, and only beside a default, which
//! must lie in the range: a value the question gives is clamped into it (`top 500` binds 50
//! under `max = 50`; a duration's bounds are in its kind's unit). A range on any other kind is
//! an error. A default is written as the canonical value: a string for text, code, dictionary,
//! uuid and quoted kinds, an ISO day for a `date`, an integer for `months`, `duration` and
//! `integer`, an array of strings for `compartments` and a `list`, `[start, end]` (ISO days,
//! `-infinity`, `infinity`) for a `date_range`; enum defaults must be among `values`.
//!
//! A `columns` entry is `{ name = "<column>", type = "<type>" }` with a type among `text`, `int`,
//! `decimal`, `date`, `timestamp`, `bool`, `uuid`, `text_list`, read from the PostgreSQL types
//! `text`/`varchar`/`char`, `smallint`/`integer`/`bigint`, `numeric`/`real`/`double precision`
//! (a float as the decimal its shortest text writes), `date`, `timestamptz`/`timestamp` (a
//! `timestamp` without a zone is printed without one), `boolean`, `uuid` and `text[]`; any other
//! type fails when the intent runs, naming the column and the cast that fixes it. On a count
//! plane (`counts_only`), a column is a declared count or a text, date or boolean label: a
//! number that is no count (an average, a share) has no place there. Adding `provides = "<param>"` says
//! the column's values can bind that param of another intent (a dependency edge: a required
//! param the question does not give, or an optional one it leaves to its default when the
//! question refers back to the upstream's rows, "top 3 carriers by spend and how reliable were
//! they"; several distinct values fan out, see `fan_out`); the column
//! type must suit the param's kind (`text` for agency, naics, clearance and uei; `uuid` or `text`
//! for uuid; `int` for months; `text_list` for compartments). Adding `unit = "usd"` to an `int` or
//! `decimal` column says its values are US dollars (narrated as `$1,234.50`).
//!
//! `suppression` is `{ count_columns = ["<column>", ...], k = <int> }`: the named columns (of type
//! `int`) hold counts of people, and any value from 1 to k-1 is suppressed. `k` defaults to
//! `registry.default_k`. An optional `sum_over = ["<column>", ...]` names text label columns that
//! split each answer row into disjoint, fixed cells (say, one per exact clearance level when the
//! param asks "at or above"): each cell is suppressed on its own, a row shows the sum of its cells
//! only when none of them is suppressed (else it is withheld), and those columns are not shown.
//! Answers whose params nest then differ only by sums of shown cells, never by a small count.
//!
//! A composite intent is a fixed sub-plan. It has `name`, `description`, `keywords`,
//! `examples`, optional `params` (the params a caller must supply, for routing and
//! clarification; each must be a param of some member), `members` (names of intents declared
//! anywhere in the file, at least two, no repeats) and `edges` (`{ from = "<member>", column =
//! "<column of from>", to = "<member>", param = "<param of to>" }`, where the column provides
//! that param). A composite has no `plane`, `scope`, `sql`, `columns` or `suppression`. Members
//! may be composites; cycles are errors.
//!
//! ## The SQL guard and the placeholder rule
//!
//! Each `sql` is parsed with the PostgreSQL dialect and must be exactly one `SELECT` or `WITH`
//! query: no data-modifying CTE, no `SELECT INTO`, no `FOR UPDATE`/`FOR SHARE`, no DML, DDL,
//! `COPY`, `SET`, `LOCK`, `CALL` or `DO`. Functions are allowed, not denied: a built-in function
//! must be on the guard's allow-list of aggregates, window functions and side-effect-free scalar
//! functions, all of them here (and the expressions `CASE`, `CAST`, `EXTRACT`, `FILTER`,
//! `WITHIN GROUP`, which are syntax, not functions):
//! `abs`, `array_agg`, `array_length`, `array_position`, `array_to_string`, `avg`, `bit_and`,
//! `bit_or`, `bool_and`, `bool_or`, `btrim`, `cardinality`, `ceil`, `ceiling`, `char_length`,
//! `coalesce`, `concat`, `concat_ws`, `count`, `cume_dist`, `current_date`, `current_timestamp`,
//! `date_part`, `date_trunc`, `dense_rank`, `every`, `first_value`, `floor`, `generate_series`,
//! `greatest`, `initcap`, `lag`, `last_value`, `lead`, `least`, `left`, `length`, `lower`, `lpad`,
//! `ltrim`, `make_date`, `make_interval`, `max`, `min`, `mode`, `nth_value`, `ntile`, `nullif`,
//! `percent_rank`, `percentile_cont`, `percentile_disc`, `rank`, `replace`, `right`, `round`,
//! `row_number`, `rpad`, `rtrim`, `sign`, `split_part`, `stddev`, `stddev_pop`, `stddev_samp`,
//! `string_agg`, `strpos`, `sum`, `to_char`, `trunc`, `unnest`, `upper`, `variance`;
//! any other name is rejected with its location, and a function written `schema.function` must
//! live in one of the plane's schemas. It may not cast to an
//! object-identifier type (`regclass`, `regproc`, `oid`, ...), use a Unicode escape (`U&"..."`,
//! `U&'...'`, which PostgreSQL decodes and the parser does not) or name the `eeo` schema
//! anywhere. Every table is schema-qualified with one of the plane's schemas.
//!
//! Placeholders are `$1..$n` where *n* is the number of `params` entries; each one is used at
//! least once, and **every occurrence is cast** to a SQL type its param's kind accepts
//! (`CAST($n AS type)` is accepted too). The kind's value shape ([`ValueShape`]) decides:
//!
//! | kinds | value | casts accepted | bound as | in the SQL |
//! |---|---|---|---|---|
//! | agency, naics, clearance, uei; `dictionary`, `code`, `quoted_text` | text | `$n::text`, `$n::varchar` | `text` | compare as text |
//! | uuid; `uuid` | text holding a UUID | `$n::uuid` | `uuid` | a value that is not a UUID fails the node, saying so |
//! | `date` | an ISO day, `YYYY-MM-DD` | `$n::date`, `$n::text` | `text` | `$n::date` reads the day; `$n::text` keeps it text (compare it with `to_char(...)`) |
//! | months; `duration`, `integer` | integer | `$n::int`, `::integer`, `::int4`, `::bigint`, `::int8` | `int8` | a duration is in its kind's unit: `make_interval(days => $n::int)` |
//! | compartments; `list` | array of values, in declared order | `$n::text[]`, `$n::varchar[]` | `text[]` | `= ANY($n::text[])`, `@>` |
//! | `date_range` | `[start, end)`, two ISO days, `-infinity` or `infinity` | `$n::text[]`, `$n::varchar[]` | `text[]` | `($n::text[])[1]::date` is the first day, `($n::text[])[2]::date` the day after the last; PostgreSQL's `date` reads `-infinity` and `infinity`, so an open end compares as no bound |
//!
//! A relative period is never bound as written: the engine resolves its `@` bounds to ISO days
//! first (see "Relative periods" above), so the SQL always receives days. A cast to any other
//! type (`$1::date` on a text kind, `$2::date[]` on a date range) is an error naming the
//! placeholder and the casts its kind accepts.
//!
//! ```rust
//! use planner_registry::Registry;
//!
//! let file = |sql: &str| {
//!     format!(
//!         r#"[registry]
//! node_cap = 6
//! default_k = 11
//! allowed_schemas = ["shop"]
//! scopes = []
//!
//! [planes]
//! shop = {{ tenant = false, schemas = ["shop"] }}
//!
//! [kinds.period]
//! type = "date_range"
//!
//! [kinds.day]
//! type = "date"
//!
//! [params]
//! period = {{ kind = "period" }}
//! day = {{ kind = "day" }}
//!
//! [[intent]]
//! name = "orders"
//! description = "Orders placed in a period, up to a day."
//! plane = "shop"
//! params = [{{ name = "period" }}, {{ name = "day" }}]
//! sql = "{sql}"
//! columns = [{{ name = "orders", type = "int" }}]
//! "#
//!     )
//! };
//! // A date range is a text array: each bound cast to a date where it is compared.
//! let good = [
//!     "SELECT count(*) AS orders FROM shop.orders AS o",
//!     "WHERE o.placed_on >= ($1::text[])[1]::date AND o.placed_on < ($1::text[])[2]::date",
//!     "AND o.placed_on <= $2::date",
//! ]
//! .join(" ");
//! if let Err(err) = Registry::from_toml(&file(&good), "shop.toml") {
//!     panic!("{err}");
//! }
//! // The range cast as one date, or the day left without a cast, is refused.
//! let bad = "SELECT count(*) AS orders FROM shop.orders AS o \
//!     WHERE o.placed_on >= $1::date AND o.placed_on <= $2";
//! let err = Registry::from_toml(&file(bad), "shop.toml").unwrap_err().to_string();
//! assert!(err.contains("placeholder $1 is cast to `date`"), "{err}");
//! assert!(err.contains("placeholder $2 (day) is used without a cast"), "{err}");
//! ```
//!
//! ## Binding, for executors
//!
//! A plan node's args come in the intent's `params` order, so arg *n* binds `$n`. Bind
//! [`Value::Text`] as `text` (for `uuid` too: the `$n::uuid` cast converts it), [`Value::Int`] as
//! `int8` and [`Value::List`] as `text[]`; the casts written in the SQL make every type explicit.
//! The output columns are listed in `SELECT` order with their [`ColumnType`].
//!
//! ## Fan-out: an upstream column with several values
//!
//! A param bound through an edge (a composite's `edges`, or a `provides` column the validator
//! binds) takes its value from the upstream node's result column once that node has run. The
//! column's distinct values, nulls left out, in the upstream's row order, decide:
//!
//! - one value: the dependant runs once with it;
//! - none: the dependant does not run, and the answer says the upstream "gave no value";
//! - several: the dependant **fans out**, running once per value, each checked as a question's
//!   value would be (a value its param does not accept, such as one outside an enum param's
//!   `values`, is skipped and counted), for at most `[registry] fan_out` values (10 by default,
//!   at most [`MAX_FAN_OUT`]); the rest are left out. The runs' rows are composed into one
//!   table, the first run's rows first; the answer says how many values ran, how many were left
//!   out and how many did not fit ("top_lanes ran once for each of the first 10 values of
//!   top_carriers.carrier; 2 values were left out (the registry runs at most 10 values a
//!   node)."), and the audit row counts each run. With `fan_out = 1` several values are an error
//!   for that node instead, and it does not run.
//!
//! Params fed by one upstream node fan out together, over the distinct rows of their columns:
//! a route's origin and destination from `top_routes` run as the pairs each row holds, not every
//! origin with every destination ("route_scorecard ran once for each of the 5 pairs of
//! top_routes.origin and top_routes.destination."). Only one upstream node fans out: when two
//! upstream nodes each give a node several values, it does not run ("one list fans out at a
//! time"), rather than run for their every combination. A provider column's type must
//! suit the param's kind, and a cell is taken as a value when it is `text`, `uuid` (as text),
//! `int` or `text_list`.
//!
//! ## A complete example
//!
//! ```toml
//! [registry]
//! node_cap = 6
//! fan_out = 10
//! default_k = 11
//! allowed_schemas = ["market", "tenant"]
//! scopes = ["bench"]
//!
//! [planes]
//! market = { tenant = false, schemas = ["market"] }
//! requirement = { tenant = true, schemas = ["tenant", "market"] }
//! bench = { tenant = true, counts = true, scope = "bench", schemas = ["tenant", "market"] }
//!
//! [params]
//! agency = { kind = "agency" }
//! naics = { kind = "naics" }
//! requirement_id = { kind = "uuid" }
//! clearance = { kind = "clearance", values = ["confidential", "secret", "top_secret", "ts_sci"] }
//! window_months = { kind = "months" }
//!
//! [[intent]]
//! name = "top_incumbents"
//! description = "Top vendors by obligations on one agency's awards in one NAICS code."
//! keywords = ["incumbent", "incumbents", "top vendors"]
//! plane = "market"
//! params = [
//!   { name = "agency" },
//!   { name = "naics" },
//!   { name = "window_months", default = 36, min = 1, max = 120 },
//! ]
//! sql = """
//! SELECT a.vendor_uei AS uei, v.name, sum(a.obligated) AS obligations
//! FROM market.awards AS a JOIN market.vendors AS v ON v.uei = a.vendor_uei
//! WHERE a.agency = $1::text AND a.naics = $2::text
//!   AND a.signed_on >= current_date - make_interval(months => $3::int)
//! GROUP BY a.vendor_uei, v.name
//! ORDER BY obligations DESC, uei
//! LIMIT 10
//! """
//! columns = [
//!   { name = "uei", type = "text" },
//!   { name = "name", type = "text" },
//!   { name = "obligations", type = "decimal" },
//! ]
//!
//! [[intent]]
//! name = "requirement_summary"
//! description = "One requirement: title, agency, NAICS, clearance and due date."
//! keywords = ["requirement", "summary"]
//! plane = "requirement"
//! params = [{ name = "requirement_id" }]
//! sql = """
//! SELECT r.title, r.agency, r.naics, r.clearance, r.due_on
//! FROM tenant.requirements AS r
//! WHERE r.id = $1::uuid
//! """
//! columns = [
//!   { name = "title", type = "text" },
//!   { name = "agency", type = "text", provides = "agency" },
//!   { name = "naics", type = "text", provides = "naics" },
//!   { name = "clearance", type = "text" },
//!   { name = "due_on", type = "date" },
//! ]
//!
//! [[intent]]
//! name = "bench_clearance_counts"
//! description = "Candidates at or above a clearance level, by availability."
//! keywords = ["bench", "cleared", "candidates"]
//! plane = "bench"
//! params = [{ name = "clearance" }]
//! sql = """
//! SELECT c.availability, count(*) AS candidates
//! FROM tenant.candidates AS c
//! WHERE c.clearance_rank >= tenant.clearance_rank($1::text)
//! GROUP BY c.availability
//! ORDER BY c.availability
//! """
//! columns = [
//!   { name = "availability", type = "text" },
//!   { name = "candidates", type = "int" },
//! ]
//! suppression = { count_columns = ["candidates"], k = 11 }
//!
//! [[intent]]
//! name = "requirement_picture"
//! description = "A requirement with the top incumbents of its agency and NAICS code."
//! keywords = ["picture", "overview"]
//! params = [{ name = "requirement_id" }]
//! members = ["requirement_summary", "top_incumbents"]
//! edges = [
//!   { from = "requirement_summary", column = "agency", to = "top_incumbents", param = "agency" },
//!   { from = "requirement_summary", column = "naics", to = "top_incumbents", param = "naics" },
//! ]
//! ```

pub mod edit;
mod error;
mod file;
mod guard;
mod kinds;
mod load;
mod model;
mod period;
pub mod reference;
mod value;

pub use crate::{
    error::{Error, Problem, Result},
    guard::{GuardViolation, check_sql, ranks_rows},
    kinds::{
        Alias, CaseRule, CodeShape, DurationUnit, Entry, Files, KindBody, KindSpec, alias_words,
        is_term, ordinary_in_capitals,
    },
    model::{
        AsOf, Column, ColumnType, Composite, CompositeEdge, DEFAULT_FAN_OUT, Intent, IntentBody,
        IntentId, IntentParam, MAX_FAN_OUT, Param, ParamId, Plane, PlaneId, QueryIntent, Registry,
        Requirement, Role, Settings, Suppression, Unit, WindowDirection,
    },
    period::{
        PeriodLabel, PeriodLength, days_in, is_relative, period_label, resolve_bound,
        resolve_period,
    },
    value::{DeclaredKind, KindType, ParamKind, ParamValue, Value, ValueShape},
};
