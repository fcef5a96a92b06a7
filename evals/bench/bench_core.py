#!/usr/bin/env python3
"""Benchmark the memory-3layer core on a large synthetic store, as ratios against a same-run baseline.

Builds a synthetic project (default: 10,000 active facts over 30 topics, one extra topic "big" of
10,000 facts, 365 daily files of ~20 lines, a MEMORY.md of ~40 lines) in a temp folder, then times
each command against a bare interpreter start ([sys.executable, "-c", "pass"]), interleaved
baseline/command runs, and reports median(command) / median(baseline). Loading is measured with the
core's derived caches current (a store its recorder maintains) and, for information, with none (a
fresh clone). See evals/bench/README.md.

Examples:
  python evals/bench/bench_core.py
  python evals/bench/bench_core.py --runs 25 --json
  python evals/bench/bench_core.py --check            # exit 1 when a target is missed
  python evals/bench/bench_core.py --keep /tmp/m3l-bench --only load
"""
import argparse
import datetime
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # importing the core here must not leave __pycache__ in scripts/
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(REPO, "scripts")
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)

from memory_core import paths as mpaths  # noqa: E402
from memory_core import store as mstore  # noqa: E402
from memory_core.similarity import fact_id, lcs_length, normalize  # noqa: E402

BIG_TOPIC = "big"
TYPICAL_TOPIC_FACTS = 300  # record_typical writes into the generated topic closest to this size
NOW = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)  # the synthetic store ends today, so record appends to a realistic daily file
FACT_MIN, FACT_MAX = 40, 160


class BenchError(Exception):
    """The benchmark cannot give a meaningful figure (a command failed, ...): exit 2 with the reason."""


DROP_ENV = ("CLAUDE_PROJECT_DIR", "CODEX_HOME", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX",
            "PYTHONPROFILEIMPORTTIME", "PYTHONSTARTUP")


# --- synthetic facts ------------------------------------------------------------------------------
#
# A template is (category, pattern, slots); a slot is (phrase list, strong). A fact is one phrase per
# slot. Two facts of one template always differ in at least two *strong* slots (phrases of ~15-45
# characters; weak slots are short words such as a version or an environment name and do not count),
# so every pair stays well below the core's near-duplicate score of 90: the store holds no accidental
# duplicates and each benchmark record is a genuinely new fact. No phrase looks like a secret.

def _lines(text):
    return [l.strip() for l in text.strip().split("\n") if l.strip()]


COMPONENTS = _lines("""
the web frontend
the admin dashboard
the billing service
the mobile app
the command-line tool
the docs site
the search indexer
the notification worker
the auth gateway
the reporting job
the checkout flow
the image resizer
the GraphQL layer
the data importer
the audit logger
the feature-flag client
the email renderer
the PDF exporter
the job scheduler
the rate limiter
the onboarding wizard
the analytics pipeline
the webhook dispatcher
the sync daemon
the plugin loader
the settings page
the component catalogue
the migration runner
the cache warmer
the public REST API
the invoice generator
the geo lookup module
the support chat widget
the upload service
the translation loader
the metrics exporter
the nightly backup job
the desktop client
the payment reconciler
the permissions module
the order history page
the CSV exporter
the subscription manager
the address validator
the coupon engine
the customer portal
the shipping label printer
the product catalogue
the session store
the websocket hub
the dunning process
the partner sync
the search autocomplete
the tax module
the report scheduler
the thumbnail worker
the public status page
the account deletion job
the inventory importer
the release bot
""")
SYMPTOMS = _lines("""
times out
returns stale data
sends every message twice
slowly leaks memory
drops the last row of the batch
hangs on shutdown
logs a misleading warning
crashes with a null pointer
skips the retry entirely
loses the user's locale
rejects valid input
writes a duplicate audit entry
spins at full CPU
writes an empty output file
ignores the proxy settings
returns results in random order
fails its health check
deadlocks on the connection pool
shows another tenant's theme
charges the card twice
truncates long names
miscounts the totals
silently drops events
renders a blank page
reports the wrong time zone
runs the same job twice
runs out of file descriptors
corrupts the thumbnail cache
emits malformed JSON
forgets the pagination cursor
""")
CONDITIONS = _lines("""
the database runs on the replica
two deploys overlap
the clock jumps back an hour
a user name contains emoji
an upload is larger than two gigabytes
the queue is paused
the container starts without a home folder
tests run in parallel
the network drops for a second
the locale is Turkish
the cache is cold after a restart
a tenant has no billing address
daylight saving time starts
the disk is almost full
a request arrives during a migration
a feature flag flips mid-request
the browser blocks third-party cookies
the payload has a trailing comma
the replica lags behind by minutes
more than five hundred rows change at once
the user signs in from two devices
a webhook arrives before the order exists
the job is cancelled halfway
the config file has Windows line endings
the read timeout is shorter than the query
the session expires during checkout
the sitemap has over fifty thousand links
a currency has no minor unit
the worker restarts during a deploy
the import file is encoded as UTF-16
""")
WORKAROUNDS = _lines("""
restart the worker after the job
set the timeout to ninety seconds
pin the driver to the previous release
run the job on a single thread
clear the cache folder first
use the fallback endpoint for now
wrap the call in the retry helper
add the missing index before deploying
turn off the prefetch option
split the batch into smaller chunks
export the locale explicitly
check the health endpoint before retrying
lock the row before updating it
replay the events from the dead-letter queue
convert the file to UTF-8 first
raise the pool size to twenty
schedule the job outside business hours
purge the CDN after the release
re-run the import with the strict flag
serialise the writes through the queue
keep the old column until the backfill ends
force a full refresh from the admin page
skip the optimisation step on small inputs
round amounts only at the very end
compare times in UTC, never in local time
debounce the handler by two hundred milliseconds
stream the file instead of loading it whole
send the idempotency header on every retry
bump the memory limit of the pod
fall back to polling every thirty seconds
""")
DEPENDENCIES = _lines("""
the user service
the payments provider
the search cluster
the object store
the ledger database
the identity provider
the CDN edge
the message broker
the geocoding API
the pricing engine
the warehouse system
the mail relay
the inventory service
the recommendations model
the tax calculator
the shipping carrier API
the fraud scoring service
the CRM
the translation service
the document store
the audit archive
the SMS gateway
the feature-flag server
the billing ledger
the analytics warehouse
the support desk
the map tile server
the currency feed
the partner catalogue
the metrics backend
""")
CACHED = _lines("""
product prices
user profiles
exchange rates
flag values
search results
tenant settings
thumbnails
permission sets
shipping quotes
country lists
session lookups
email templates
tax rates
store opening hours
avatar URLs
category trees
inventory counts
address suggestions
plan limits
holiday calendars
translated labels
fraud scores
carrier rates
report totals
menu structures
API schemas
coupon rules
stock levels
map tiles
partner logos
""")
DURATIONS = _lines("""
thirty seconds
five minutes
ten minutes
one hour
six hours
a day
ninety seconds
fifteen minutes
two hours
a week
""")
ARCH_EXTRAS = _lines("""
falls back to stale data on errors
retries each call up to three times
logs every slow response
opens a circuit breaker after five failures
batches requests in groups of fifty
authenticates as a service account
streams large responses in pages
compresses payloads above one kilobyte
drops requests older than a minute
writes a trace span per call
rejects responses without a version header
pins the client to API version two
warms its cache at startup
shares one connection pool per process
keeps a local copy for offline mode
emits a metric for each cache miss
validates responses against the schema
handles callbacks on a dedicated thread
pauses calls during maintenance windows
serves the last good value when slow
caps concurrency at eight calls
merges identical in-flight requests
records each failure in the audit log
queues writes while the link is down
calls it only from the worker tier
limits itself to ten calls per second
honours the retry-after header
skips the cache for admin users
invalidates entries on every deploy
sends a correlation ID with each call
""")
CHOICE_PAIRS = _lines("""
PostgreSQL over MySQL
Redis over Memcached
Kafka over RabbitMQ
gRPC over plain REST
Celery over cron scripts
Temporal over hand-written state machines
S3 over a shared NFS volume
OpenTelemetry over vendor agents
Prometheus over StatsD
server-side rendering over a client-only app
Tailwind over Sass
Pydantic over marshmallow
Alembic over hand-written SQL files
Flyway over Liquibase
Playwright over Selenium
pytest over nose
Vitest over Jest
htmx over a single-page app
SvelteKit over Next.js
FastAPI over Flask
Django over a custom framework
SQLite over a JSON file
Terraform over manual console changes
GitHub Actions over Jenkins
Argo CD over manual kubectl
Sentry over log scraping
ClickHouse over Elasticsearch
Stripe over a direct bank integration
Caddy over nginx
uv over pip-tools
""")
PURPOSES = _lines("""
background jobs
session storage
end-to-end tests
the event bus
configuration parsing
schema migrations
tracing
the marketing pages
calls between services
file storage
styling
request validation
the audit trail
batch exports
rate limiting
search suggestions
the reporting dashboards
nightly data syncs
the deploy pipeline
error tracking
the admin tools
long-running workflows
email scheduling
the mobile backend
feature experiments
image processing
the public API
infrastructure changes
the partner integrations
local development
""")
REASONS = _lines("""
the team already knows it
it needs no extra server
its licence fits the product
it handles retries for us
the hosting provider supports it natively
it was twice as fast in our load test
debugging it locally is simpler
it keeps the dependency tree small
it survives a region failover
the old option is no longer maintained
it matches what the platform team runs
it lets us ship without a build step
its error messages are much clearer
it has first-class type support
hiring for it is easier
it cut the cloud bill noticeably
the vendor offers an EU data region
it works offline on developer laptops
upgrades have been painless so far
it integrates with our single sign-on
the migration path was well documented
it scales to zero outside office hours
its test tooling is far better
the security review approved it quickly
the community answers questions fast
it keeps cold starts under a second
it needs one process instead of three
we can host it ourselves if needed
its API is stable across major versions
the pilot team preferred it
""")
DECISION_CONTEXTS = _lines("""
in the March architecture review
after the spring outage
during the platform rewrite
at the last quarterly planning
in the design doc for version two
after a two-week spike
in the retro after the launch
when we split the monolith
at the security audit
with the data team's sign-off
when the old contract ended
after the load test in June
in the tech radar session
during the cloud migration
when startup time became a problem
after comparing three prototypes
at the kickoff of the mobile project
when traffic doubled last winter
in the incident follow-up
while onboarding the second team
after the cost review
when we dropped Python 3.7
in the API guild meeting
before the public beta
when the EU customers arrived
after the on-call survey
during the accessibility push
at the infrastructure offsite
in the RFC discussion
when the vendor raised prices
""")
GOAL_COMMANDS = _lines("""
regenerate the API client, run `make gen`
reset the local database, run `make db-reset`
refresh the test fixtures, run `just fixtures`
rebuild the search index, run `npm run build:index`
update the changelog, run `towncrier build`
bump the app version, run `bumpversion patch`
profile a slow endpoint, run `py-spy record -o out.svg`
seed the demo tenant, run `make seed-demo`
preview the docs, run `mkdocs serve`
reproduce a CI job locally, run `act -j test`
rebuild the icon font, run `pnpm icons`
clean up orphaned uploads, run `python manage.py cleanup`
update the translation catalogue, run `make i18n`
re-send failed webhooks, run `python -m tools.replay`
compile the protobufs, run `buf generate`
format everything, run `make fmt`
check the types, run `mypy src`
update the lockfile, run `uv lock`
execute the slow tests, run `pytest -m slow`
start the full stack, run `docker compose up`
rebuild the component catalogue, run `pnpm storybook:build`
draw the database diagram, run `make erd`
apply pending migrations, run `alembic upgrade head`
undo the last migration, run `alembic downgrade -1`
export the dashboards, run `make dashboards`
refresh the licence report, run `make licenses`
open a debug shell, run `make shell`
sync the feature flags, run `python -m tools.flags pull`
rebuild the Android bundle, run `yarn bundle:android`
check the docs for dead links, run `make linkcheck`
""")
DIRS = _lines("""
the repository root
the backend folder
the infra folder
the tools folder
the frontend folder
the dev container
the docs folder
a clean checkout
""")
PREREQS = _lines("""
with the VPN on
after pulling main
with Docker running
inside the virtual environment
with the staging profile selected
after stopping the dev server
with the test database up
while on the release branch
after installing the git hooks
with ten gigabytes of free disk
after exporting the region variable
with the emulator started
after a fresh dependency install
with network access
as the deploy user
with the cache volume mounted
after rebasing on main
with the feature flag on locally
outside the pre-commit hook
with verbose logging on
after closing the IDE
with the local mail catcher running
after building the shared package
with the sample data loaded
on a machine with Node 20
before opening the pull request
against the read-only replica
after syncing the submodules
with telemetry turned off
once the nightly backup finishes
""")
FOLLOWUPS = _lines("""
commit the generated files in the same change
restart the dev server afterwards
check the diff before pushing
wait for the health check to turn green
tag the release on main
paste the summary into the pull request
run the smoke tests again
delete the temporary branch
post in the team channel when it finishes
verify the counts in the admin page
attach the report to the ticket
update the version in the README
clear the browser cache
run the linter again
open the generated report in a browser
note the duration in the runbook
revert the local config changes
upload the artefact to the release page
check the error tracker for new issues
ask a reviewer to double-check the output
close the maintenance window
rerun the failed CI job
bump the docs version
restart the queue workers
archive the old output folder
compare the totals with last week
reset the feature flag afterwards
record the result in the changelog
stop the containers when done
sign off in the release checklist
""")
AREAS = _lines("""
Python modules
TypeScript files
SQL migrations
React components
shell scripts
Go packages
CI pipelines
Terraform modules
unit tests
integration tests
REST handlers
GraphQL resolvers
CSS modules
Dockerfiles
Helm charts
protobuf schemas
Rust crates
Kotlin classes
the Markdown docs
Jupyter notebooks
Swift views
the Celery tasks
the Django admin
API error responses
log messages
config files
database models
email templates
the public SDK
feature flag names
""")
CONVENTIONS = _lines("""
imports are sorted with the black profile
private helpers start with an underscore
every public function gets a short docstring
timestamps are stored in UTC only
error messages name the file and the fix
feature flags are read through one helper
constants live at the top of the module
magic numbers become named constants
logging goes through the structured logger
each file keeps a single responsibility
comments explain why rather than what
lines stay under one hundred characters
retries use exponential backoff with jitter
test names describe the expected behaviour
new columns start out nullable
enum members use upper snake case
money is stored as integer cents
IDs are UUIDs, never sequential integers
dates are formatted as ISO 8601
every migration has a down step
no function takes more than five parameters
boolean names start with is or has
user-facing strings go through the translator
side effects stay out of constructors
async code never blocks on file reads
every endpoint declares its response schema
wildcard imports are forbidden
HTTP calls always set an explicit timeout
environment variables are read in one place
fixtures come from factories, not raw SQL
""")
BENEFITS = _lines("""
reviews stay short
diffs remain readable
on-call engineers can grep the logs
the linters pass without overrides
newcomers find things quickly
rollbacks stay safe
generated code never drifts
the API docs build cleanly
flaky failures are easier to spot
translations do not break
bisecting regressions stays practical
the bundle stays small
rounding errors cannot creep in
merges between teams rarely conflict
support can answer tickets faster
the schema stays backwards compatible
tests can run in any order
we can swap vendors later
time zone bugs stay rare
security reviews go faster
the mobile apps keep working offline
production incidents are easier to trace
refactors stay mechanical
deploys never need downtime
releases hold no surprises
new services start from the same shape
performance budgets stay visible
the audit trail stays complete
the SDK stays stable for partners
nobody has to guess the units
""")
ENFORCEMENTS = _lines("""
the linter enforces it
reviewers check it by hand
a pre-commit hook fixes it automatically
CI fails the build otherwise
the code generator already does it
the style guide has examples
a custom lint rule flags violations
the template repository starts that way
older code is fixed when touched
the formatter applies it on save
a weekly report lists offenders
the type checker catches most slips
exceptions need a comment with a reason
the architecture tests verify it
the schema validator rejects the rest
a codemod migrated the old code
the docs site explains the reasoning
the team lead reviews exceptions
the editor settings in the repo apply it
the contract tests cover it
a snapshot test guards it
the onboarding checklist mentions it
the release checklist checks it
the API gateway rejects anything else
the migration linter blocks the rest
a bot comments on pull requests that break it
a database constraint enforces it
the SDK generator relies on it
only the legacy folder is exempt
it is part of the definition of done
""")
PEOPLE = _lines("""
The maintainer
The tech lead
The product owner
The design team
The security reviewer
The QA lead
The platform team
Our main reviewer
The data team
The release manager
""")
STYLES = _lines("""
small focused commits
explicit type hints
early returns
plain SQL over the ORM
descriptive branch names
squash merges
named exports
composition over inheritance
short pull requests
feature toggles over long branches
table-driven tests
British spelling
pure functions where possible
one assertion per test
keyword arguments for optional flags
immutable data classes
structured log fields
small reusable components
dependency injection
explicit error types
""")
ARTIFACTS = _lines("""
backend code
frontend code
the infrastructure code
test code
the public docs
release notes
migration scripts
the design system
code reviews
the CLI tools
the mobile apps
data pipelines
the SDK
internal scripts
API examples
""")
PREF_REASONS = _lines("""
it keeps reviews quick
it makes bisecting easier
past bugs came from the opposite habit
it reads better in diffs
the tooling supports it well
it matches the upstream projects
it makes onboarding faster
it avoids merge pain
the last incident taught us so
it keeps the docs honest
it shortens feedback loops
it is easier to test
customers read those pages
it keeps blame history useful
it suits the small team
it avoids hidden state
it keeps the API predictable
it makes refactoring safer
it helps the translators
it saves CI minutes
""")
ENVS = ["staging", "production", "preview", "QA", "demo", "load-test", "sandbox", "canary"]
ENV_FACTS = _lines("""
runs on the smaller instance type
has its own read replica
is reset every Sunday night
uses the shared Redis cluster
sends mail only to the test inbox
keeps logs for fourteen days
is deployed from the release branch
has the new checkout enabled
runs two workers per queue
may call only the payment sandbox
lives in the EU region
mirrors the production schema
scales down to zero at night
works on anonymised customer data
is redeployed on every merge
shares a database with the reporting job
has verbose tracing switched on
is pinned to the previous runtime
reads flags from a separate project
uses a self-signed certificate
has no outbound internet access
runs behind the corporate proxy
keeps only one replica
writes uploads to a temporary bucket
is capped at fifty requests per second
runs the nightly jobs an hour later
uses fake payment providers
has the old search engine still enabled
is rebuilt from scratch each month
has backups turned off
""")
ENV_NOTES = _lines("""
ask in the platform channel before changing it
the runbook has the details
expect slower responses there
do not load-test it without notice
its dashboards are in the ops folder
data there is wiped without warning
the on-call rotation covers it too
costs are tracked per team
alerts from it go to a muted channel
access needs an approved ticket
the infra team plans to change this soon
keep that in mind when reproducing bugs
it has surprised new joiners before
the README explains how to reach it
never point real customers at it
tests against it must clean up after themselves
it is documented in the architecture notes
the limit is set in the Terraform module
changing it needs a second approval
it explains most of the odd timings there
support uses it for customer demos
bug reports from it need the build number
the deploy bot announces every change
it is monitored only during office hours
it may lag the main branch by a day
its logs are not shipped to the archive
treat its metrics as rough numbers
it still uses the old domain name
expect it to be down on Monday mornings
the last quarterly review kept it that way
""")
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
YEARS = ["2021", "2022", "2023", "2024", "2025"]
REQUIREMENTS = _lines("""
a running Postgres container
the fake payment server
network access disabled
a seeded database
the UTC time zone
at least two CPU cores
the recorded HTTP cassettes
a fresh browser profile
the emulator image
the local object store
the fixed random seed
the mock identity provider
the test mail catcher
a clean Redis instance
the sample upload files
the frozen clock fixture
an empty search index
the schema from the latest migration
the French locale installed
a GPU-free runner
the contract stubs from the partner repo
the headless browser
write access to a temp folder
the feature flags file
the large fixture archive
the in-memory queue
the replay proxy
a logged-in test user
a single worker process
the offline map tiles
""")
TEST_NOTES = _lines("""
they are skipped on pull requests from forks
run them with the slow marker
they take about six minutes
a failure there usually means a missing migration
they must not share the default schema
CI runs them nightly only
keep them out of the pre-commit hook
retry once before reporting a flake
they rebuild the fixtures on first run
the snapshot files live next to them
update the snapshots only on purpose
they fail on machines set to local time
they need the ports from the compose file
their output goes to the reports folder
one of them is quarantined for flakiness
they print the seed when they fail
they are the slowest part of the suite
they catch most regressions in that area
they share a helper module with the e2e suite
new tests there need a linked issue
they use a separate coverage threshold
they run in a random order
they are parallel-safe since the last cleanup
they clean up their temp files on exit
their fixtures are generated, never edited
they reset the clock after each case
the team reviews them in every release
they were rewritten last spring
their timeout is two minutes per case
they mock every outbound call
""")
TEAMS = _lines("""
The platform team
The payments squad
The growth team
The data team
The mobile team
The search team
The security team
The infra team
The docs team
The core API team
""")
OWNED_THINGS = _lines("""
its public interface
the database schema
the retry policy
the alert thresholds
the deploy pipeline
the shared configuration
the error codes
the dependency versions
the rate limits
the caching rules
the event formats
the log retention
the permission model
the release schedule
the integration tests
the monitoring dashboards
the data model
the URL structure
the timeout settings
the feature flags
""")
OWNER_NOTES = _lines("""
they review within a day
open an issue in their tracker first
their on-call handles incidents there
changes need their written approval
they keep a changelog for it
they publish a migration guide for big changes
they meet on Tuesdays to discuss requests
small fixes can go straight to review
they prefer a design note up front
their roadmap is in the team wiki
they run the load tests for it
they know the history behind the quirks
they pair on tricky changes
urgent changes go through their lead
they batch releases every other week
they track requests on their board
they want a test for every change
their channel answers quickly
they rotate the reviewer weekly
they document decisions in ADRs
they own the pager for it too
they can grant temporary access
they schedule changes around releases
they keep a list of known issues
they hold the budget for it
their staging setup mirrors production
they freeze changes before launches
they expect benchmarks for hot paths
they archive old versions yearly
they sign off every schema change
""")
TODO_ACTIONS = _lines("""
remove the legacy endpoint
add pagination
replace the polling loop
drop the old feature flag
split the oversized module
add an index on the created column
document the retry limits
migrate the remaining callers
delete the dead translation strings
raise the test coverage
move the config to environment variables
replace the deprecated HTTP client
add structured logging
remove the vendored copy of the parser
switch to the new payments API
make the job idempotent
add a dark mode toggle
add alerts for slow queries
remove the temporary debug route
add type hints to the public functions
stop writing to the old table
merge the duplicated helpers
add rate limiting
clean up the unused CSS
replace the hand-rolled date parsing
add an accessibility audit
archive the old reports
add a health endpoint
make the retries configurable
drop support for the old browser
""")
MILESTONES = _lines("""
the next release
the end of the quarter
the data migration
the security review
the framework upgrade
the public launch
the audit
the holiday freeze
the partner rollout
the summer sale
the database upgrade
version three
the mobile relaunch
the pricing change
the EU rollout
the contract renewal
""")
TODO_REASONS = _lines("""
it blocks the cleanup
support keeps hitting it
it slows every deploy
the vendor drops the old API
it doubles the hosting cost
customers asked for it
it hides real errors
it confuses new contributors
the auditors flagged it
it breaks on the new runtime
the on-call team asked for it
it makes the tests flaky
it fails under heavy load
it is the top item in the survey
it keeps two code paths alive
it wastes CI minutes
the design review required it
the mobile team depends on it
it stops the schema cleanup
it is the last use of the old library
the product team promised it
it costs us every month
it is noisy in the logs
the docs already describe it
it is needed for the new region
the partner contract requires it
it saves a query on every page
it keeps outdated data around
nobody can debug the current code
it was agreed in the last retro
""")
TOOLS = ["pnpm", "Poetry", "Gradle", "Cargo", "Bazel", "Vite", "webpack", "esbuild", "uv", "Maven", "Yarn",
         "tsup", "Rollup", "Make", "CMake", "Nx", "Turborepo", "hatch"]
TOOL_RULES = _lines("""
never mix it with another package manager
commit the lockfile with every dependency change
run the clean target after switching branches
CI pins exactly the same version
the cache folder is not shared between jobs
upgrades go through a separate pull request
offline builds need the vendored mirror
release builds must use the frozen flag
watch mode leaks file handles on macOS
plugins are configured in the root file only
incremental builds break after renaming a package
the wrapper script is the only supported entry point
the build output goes to the dist folder
source maps are uploaded only for releases
the config is shared with the docs site
a full build takes about four minutes
parallel builds need eight gigabytes of memory
the nightly job refreshes its cache
the Windows build needs the long-paths setting
its plugins are pinned to exact versions
""")
TOOL_NOTES = _lines("""
see the build section of the README
the platform team maintains the config
ask before upgrading the major version
the release job uses the same command
local builds may skip the type check
the CI image has it preinstalled
the migration from the old tool finished last year
build times are tracked on the dashboard
a failing build blocks the merge queue
the docs build reuses its output
the old scripts folder is deprecated
the cache can be wiped safely
it runs inside the dev container too
the config has comments for every option
breaking changes are announced in the channel
""")

TEMPLATES = [
    ("pitfall", "{0} {1} when {2}; {3}.",
     [(COMPONENTS, True), (SYMPTOMS, True), (CONDITIONS, True), (WORKAROUNDS, True)]),
    ("architecture", "{0} calls {1}, caches {2} for {3} and {4}.",
     [(COMPONENTS, True), (DEPENDENCIES, True), (CACHED, True), (DURATIONS, False), (ARCH_EXTRAS, True)]),
    ("decision", "We chose {0} for {1} because {2}, decided {3}.",
     [(CHOICE_PAIRS, True), (PURPOSES, True), (REASONS, True), (DECISION_CONTEXTS, True)]),
    ("convention", "In {0}, {1} so that {2}; {3}.",
     [(AREAS, True), (CONVENTIONS, True), (BENEFITS, True), (ENFORCEMENTS, True)]),
    ("todo", "Still to do: {0} in {1} before {2}, because {3}.",
     [(TODO_ACTIONS, True), (COMPONENTS, True), (MILESTONES, True), (TODO_REASONS, True)]),
    ("procedure", "To {0} from {1} {2}, then {3}.",
     [(GOAL_COMMANDS, True), (DIRS, False), (PREREQS, True), (FOLLOWUPS, True)]),
    ("preference", "{0} prefers {1} in {2} because {3}.",
     [(PEOPLE, False), (STYLES, True), (ARTIFACTS, True), (PREF_REASONS, True)]),
    ("fact", "In {0}, {1} {2} since {3} {4}; {5}.",
     [(ENVS, False), (COMPONENTS, True), (ENV_FACTS, True), (MONTHS, False), (YEARS, False),
      (ENV_NOTES, True)]),
    ("procedure", "Tests for {0} need {1}; {2}.",
     [(COMPONENTS, True), (REQUIREMENTS, True), (TEST_NOTES, True)]),
    ("fact", "{0} owns {1}, so ask before changing {2}; {3}.",
     [(TEAMS, False), (COMPONENTS, True), (OWNED_THINGS, True), (OWNER_NOTES, True)]),
    ("convention", "{0} is built with {1} {2}: {3}; {4}.",
     [(COMPONENTS, True), (TOOLS, False), ([str(v) for v in range(1, 10)], False), (TOOL_RULES, True),
      (TOOL_NOTES, True)]),
    # short ones, so lengths vary
    ("pitfall", "{0} {1} when {2}.", [(COMPONENTS, True), (SYMPTOMS, True), (CONDITIONS, True)]),
    ("architecture", "{0} calls {1} and {2}.", [(COMPONENTS, True), (DEPENDENCIES, True), (ARCH_EXTRAS, True)]),
    ("todo", "Still to do: {0} in {1} before {2}.", [(TODO_ACTIONS, True), (COMPONENTS, True), (MILESTONES, True)]),
]

TOPIC_NAMES = [
    "workflow", "deploy", "testing", "frontend", "backend", "database", "ci", "api", "billing", "auth",
    "search", "mobile", "infra", "docs", "observability", "performance", "release", "i18n", "payments",
    "notifications", "storage", "security-review", "onboarding", "analytics", "design-system", "cli",
    "integrations", "data-pipeline", "accessibility", "support",
]
SOURCE_FILES = [
    "src/app.py", "src/api/routes.ts", "backend/models.py", "web/package.json", "infra/main.tf",
    "Makefile", "docker-compose.yml", ".github/workflows/ci.yml", "docs/setup.md", "pyproject.toml",
    "src/billing/invoice.go", "mobile/build.gradle",
]
TAGS = ["build", "tests", "ci", "perf", "ux", "infra", "data", "api", "docs", "ops", "release", "deps"]


def _cap(text):
    return text[0].upper() + text[1:]


class FactGenerator(object):
    """Seeded, varied facts of 40-160 characters, none a near-duplicate of another.

    Two rules, per template: (1) every pattern "all strong slots but one" is used at most once, so two
    facts differ in at least two strong slots; (2) a candidate is compared with every fact that
    differs from it in exactly two strong slots, estimating their similarity slot by slot (the
    similarity measure of the core: 100 * (1 - indel distance / total length) on normalised text), and
    dropped above NEAR_LIMIT. A template is drawn in proportion to how many facts it can hold."""

    NEAR_LIMIT = 84.0  # well under the core's 90: a slot-by-slot estimate slightly underrates similarity

    def __init__(self, rng):
        self.rng = rng
        self.used_keys = set()
        self.used_texts = set()
        self.pair_index = {}      # (template, i, j, other strong picks) -> [(picks, normalised length)]
        self._dist = {}           # (slot list id, a, b) -> indel distance of the two normalised phrases
        self._norm = {}
        self.strong = [[i for i, (_lst, strong) in enumerate(t[2]) if strong] for t in TEMPLATES]
        self.weights = []
        for tid, (_cat, _pat, slots) in enumerate(TEMPLATES):
            sizes = [len(slots[i][0]) for i in self.strong[tid]]
            product = 1
            for n in sizes:
                product *= n
            self.weights.append(product // max(sizes))
        self.template_ids = list(range(len(TEMPLATES)))

    def _phrase(self, lst, index):
        key = (id(lst), index)
        if key not in self._norm:
            self._norm[key] = normalize(lst[index])
        return self._norm[key]

    def _indel(self, lst, a, b):
        if a > b:
            a, b = b, a
        key = (id(lst), a, b)
        found = self._dist.get(key)
        if found is None:
            x, y = self._phrase(lst, a), self._phrase(lst, b)
            found = self._dist[key] = len(x) + len(y) - 2 * lcs_length(x, y)
        return found

    def _too_close(self, slots, picks, norm_len, neighbours):
        for other, other_len in neighbours:
            dist = 0
            for (lst, _strong), a, b in zip(slots, picks, other):
                if a != b:
                    dist += self._indel(lst, a, b)
            if 100.0 * (1.0 - float(dist) / (norm_len + other_len)) >= self.NEAR_LIMIT:
                return True
        return False

    def next(self):
        rng = self.rng
        for _attempt in range(20000):
            tid = rng.choices(self.template_ids, weights=self.weights)[0]
            category, pattern, slots = TEMPLATES[tid]
            picks = tuple(rng.randrange(len(lst)) for lst, _strong in slots)
            text = _cap(pattern.format(*(lst[p] for (lst, _s), p in zip(slots, picks))))
            if not FACT_MIN <= len(text) <= FACT_MAX or text in self.used_texts:
                continue
            strong = self.strong[tid]
            keys = [(tid, i) + tuple(picks[j] for j in strong if j != i) for i in strong]
            if any(k in self.used_keys for k in keys):
                continue
            pair_keys = [(tid, i, j) + tuple(picks[m] for m in strong if m != i and m != j)
                         for n, i in enumerate(strong) for j in strong[n + 1:]]
            norm_len = len(normalize(text))
            if any(self._too_close(slots, picks, norm_len, self.pair_index.get(k, ())) for k in pair_keys):
                continue
            self.used_keys.update(keys)
            for k in pair_keys:
                self.pair_index.setdefault(k, []).append((picks, norm_len))
            self.used_texts.add(text)
            return category, text
        raise BenchError("the fact generator ran out of distinct facts; use fewer --facts")


# --- the synthetic store --------------------------------------------------------------------------

def _topic_names(count):
    names = list(TOPIC_NAMES[:count])
    n = 2
    while len(names) < count:
        names.extend("%s-%d" % (t, n) for t in TOPIC_NAMES[:count - len(names)])
        n += 1
    return names


def _make_item(rng, gen, topic, stamp):
    category, text = gen.next()
    roll = rng.random()
    if roll < 0.6:
        source = "user"
    elif roll < 0.85:
        source = "file:" + rng.choice(SOURCE_FILES)
    else:
        source = "migrated:.claude/memory/notes.md"
    created = stamp
    updated = created
    if rng.random() < 0.1:
        updated = created + datetime.timedelta(hours=rng.randint(1, 24 * 30))
    return {"id": fact_id(topic, text), "fact": text, "status": "active", "category": category,
            "source": source, "inferred": rng.random() < 0.15, "created_at": mstore.iso(created),
            "updated_at": mstore.iso(min(updated, NOW)), "superseded_by": None, "supersedes": [],
            "tags": sorted(rng.sample(TAGS, rng.choice((0, 0, 1, 1, 2))))}


def build_store(project, facts, topics, days, big_facts, seed, extra_facts):
    """Write the synthetic store under project/.memory-3layer; return (stats, [extra new facts])."""
    rng = random.Random(seed)
    gen = FactGenerator(rng)
    store = os.path.join(project, mpaths.STORE_DIRNAME)
    os.makedirs(store)
    with mstore.StoreLock(store):
        mstore.init_store(store)  # template files, exactly as a first record would create them
    today = NOW.replace(hour=0, minute=0, second=0)
    day_starts = [today - datetime.timedelta(days=d) for d in range(max(days, 1))]

    def stamp():
        start = rng.choice(day_starts)
        moment = start + datetime.timedelta(seconds=rng.randint(7 * 3600, 20 * 3600))
        return min(moment, NOW)

    names = _topic_names(topics)
    weights = [rng.uniform(0.3, 3.0) for _ in names]  # uneven, as real topics are
    by_topic = dict((t, []) for t in names)
    for _ in range(facts):
        topic = rng.choices(names, weights=weights)[0]
        by_topic[topic].append(_make_item(rng, gen, topic, stamp()))
    by_topic[BIG_TOPIC] = [_make_item(rng, gen, BIG_TOPIC, stamp()) for _ in range(big_facts)]

    per_day = {}
    items_bytes = 0
    for topic, items in by_topic.items():
        items.sort(key=lambda it: (it["created_at"], it["id"]))  # record appends in time order
        path = mpaths.topic_items_path(store, topic)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = mstore.dump_items(topic, {}, items)
        items_bytes += len(data)
        with open(path, "wb") as fh:
            fh.write(data)
        for it in items:
            per_day.setdefault(it["created_at"][:10], []).append((topic, it))

    daily_lines = 0
    if days > 0:
        daily_dir = os.path.join(store, mpaths.DAILY_DIR)
        for start in day_starts:
            day = start.strftime("%Y-%m-%d")
            recorded = per_day.get(day, [])
            chosen = rng.sample(recorded, min(len(recorded), rng.randint(15, 25)))
            chosen.sort(key=lambda pair: pair[1]["created_at"])
            lines = [mstore.daily_line_text(mstore.parse_time(it["created_at"]), topic, it["fact"], it["id"])
                     for topic, it in chosen]
            daily_lines += len(lines)
            with open(os.path.join(daily_dir, day + ".md"), "wb") as fh:
                fh.write(("# %s\n\n%s\n" % (day, "\n".join(lines))).encode("utf-8"))

    # Layer 3: the template plus confirmed facts, added the way --promote --confirmed adds them.
    memory_path = os.path.join(store, mpaths.LAYER3_FILE)
    memory_md = mstore.read_text(memory_path) or mstore.FALLBACK_MEMORY_MD
    pool = [(t, it) for t in names for it in by_topic[t]]
    for topic, it in rng.sample(pool, min(len(pool), 26)):
        memory_md = mstore.promote_text(memory_md, it["fact"], it["id"], it["category"],
                                        mstore.parse_time(it["updated_at"])) or memory_md
    with open(memory_path, "wb") as fh:
        fh.write(memory_md.encode("utf-8"))

    extra = [gen.next()[1] for _ in range(extra_facts)]
    typical = min(names, key=lambda t: abs(len(by_topic[t]) - TYPICAL_TOPIC_FACTS))
    stats = {"facts": facts, "topics": len(names), "big_topic_facts": big_facts, "daily_files": days,
             "typical_topic": typical, "typical_topic_facts": len(by_topic[typical]),
             "daily_lines": daily_lines, "memory_md_lines": memory_md.count("\n") + 1,
             "items_json_bytes": items_bytes}
    return stats, extra


# --- running children -----------------------------------------------------------------------------

# Runs exactly one child and prints its peak RSS in KiB. Kept tiny (no subprocess import), because the
# child's figure can include the RSS of the process that spawned it.
RSS_WRAPPER = (
    "import os,resource,sys\n"
    "fd=os.open(os.devnull,os.O_RDWR)\n"
    "pid=os.posix_spawn(sys.argv[1],sys.argv[1:],os.environ,"
    "file_actions=[(os.POSIX_SPAWN_DUP2,fd,0),(os.POSIX_SPAWN_DUP2,fd,1),(os.POSIX_SPAWN_DUP2,fd,2)])\n"
    "st=os.waitpid(pid,0)[1]\n"
    "r=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(os.waitstatus_to_exitcode(st) if hasattr(os,'waitstatus_to_exitcode') else st>>8,"
    "r//1024 if sys.platform=='darwin' else r)\n"
)


class Context(object):
    def __init__(self, python, project, env, new_facts):
        self.python = python
        self.project = project
        self.store = os.path.join(project, mpaths.STORE_DIRNAME)
        self.env = env
        self._new_facts = list(new_facts)
        self.facts_used = 0

    def script(self, name):
        """The installed copy's script: what a project runs (and where its byte-code is cached)."""
        return os.path.join(self.skill, "hooks" if name == "run_hook.py" else "scripts", name)

    def new_fact(self):
        if self.facts_used >= len(self._new_facts):
            raise BenchError("out of pre-generated new facts (raise EXTRA_FACTS_PER_RUN)")
        fact = self._new_facts[self.facts_used]
        self.facts_used += 1
        return fact


def clean_env():
    # PYTHONDONTWRITEBYTECODE is dropped: byte-code is compiled once in the warm-up, as in real use.
    return dict((k, v) for k, v in os.environ.items() if not k.startswith("MEMORY_") and k not in DROP_ENV)


def run_timed(argv, ctx, stdin_data=None):
    """Wall time of one child, stdout/stderr discarded; (seconds, exit code)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ctx.project, env=ctx.env,
                            stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc.communicate(stdin_data)
    return time.perf_counter() - t0, proc.returncode


def explain_failure(name, argv, code, ctx, stdin_data=None):
    proc = subprocess.run(argv, cwd=ctx.project, env=ctx.env, input=stdin_data, capture_output=True,
                          stdin=None if stdin_data is not None else subprocess.DEVNULL)
    tail = (proc.stderr or proc.stdout or b"").decode("utf-8", "replace").strip()[-1500:]
    raise BenchError("%s failed with exit code %s\n  command: %s\n  re-run exit %s, output:\n%s"
                     % (name, code, " ".join(argv), proc.returncode, tail))


def peak_rss_kib(argv, ctx):
    out = subprocess.run([ctx.python, "-c", RSS_WRAPPER] + argv, cwd=ctx.project, env=ctx.env,
                         stdin=subprocess.DEVNULL, capture_output=True)
    try:
        code, kib = (int(x) for x in out.stdout.decode().split())
    except ValueError:
        raise BenchError("the RSS wrapper failed: %s" % out.stderr.decode("utf-8", "replace")[-1500:])
    return code, kib


# --- the benchmarks -------------------------------------------------------------------------------

class Bench(object):
    """One measured command. kind "time": wall-time ratio to the baseline, target = highest ratio;
    kind "rss": peak RSS in MB, target = highest MB; target None: reported, never a MISS.
    prepare(ctx) puts the store in the state to measure (e.g. caches warm or absent); argv(ctx)
    builds a fresh argv per run; stdin(ctx) optionally gives the bytes to send (hook payloads);
    before(ctx) snapshots what verify(ctx, calls, snapshot) checks once all runs are done."""

    def __init__(self, name, kind, argv, target, prepare=None, stdin=None, before=None, verify=None, note=""):
        self.name, self.kind, self.argv, self.target = name, kind, argv, target
        self.prepare, self.stdin, self.before, self.verify, self.note = prepare, stdin, before, verify, note


def _load_argv(ctx):
    return [ctx.python, ctx.script("load_memory.py"), "--project-dir", ctx.project]


def _record_argv(ctx):
    # --force-surface: the generated sentences are facts; a word such as "still" must not turn a timed
    # write into a refusal (the classifier still runs and is timed).
    return [ctx.python, ctx.script("record_memory.py"), "--project-dir", ctx.project, "--topic", BIG_TOPIC,
            "--force-surface", "--fact", ctx.new_fact()]


def _record_typical_argv(ctx):
    return [ctx.python, ctx.script("record_memory.py"), "--project-dir", ctx.project, "--topic", ctx.typical_topic,
            "--force-surface", "--fact", ctx.new_fact()]


def _hook_argv(event):
    def argv(ctx):
        return [ctx.python, ctx.script("run_hook.py"), event, "--host", "claude"]
    return argv


def _hook_payload(event, **fields):
    """The payload a host sends, as bytes; cwd is the project, as Codex and Claude Code send it."""
    def payload(ctx):
        ctx.hook_runs = getattr(ctx, "hook_runs", 0) + 1
        # A new session each run: a SessionStart repeated within seconds for one session is answered
        # with a one-line note instead of the memory, which would flatter the figure.
        data = {"session_id": "bench-session-%d" % ctx.hook_runs, "transcript_path": "", "cwd": ctx.project,
                "hook_event_name": event}
        data.update(fields)
        if event == "PostToolUse":  # a new file each run: every run really records
            ctx.hook_files = getattr(ctx, "hook_files", 0) + 1
            data["tool_input"] = {"file_path": os.path.join(ctx.project, "src", "module_%d.py" % ctx.hook_files)}
        return json.dumps(data).encode("utf-8")
    return payload


def _big_count(ctx):
    return len(mstore.read_topic(ctx.store, BIG_TOPIC)[1])


def _verify_record(ctx, calls, expected_before):
    _doc, items = mstore.read_topic(ctx.store, BIG_TOPIC)
    if len(items) != expected_before + calls:
        raise BenchError("record ran %d times but topic %s went from %d to %d items: some runs were "
                         "taken as duplicates, so their timings are not of a real write"
                         % (calls, BIG_TOPIC, expected_before, len(items)))


def _index_module():
    try:
        from memory_core import index
    except ImportError:  # a core without derived caches
        return None
    return index


def _cache_dir(ctx):
    index = _index_module()
    return os.path.join(ctx.store, getattr(index, "CACHE_DIR", os.path.join(mpaths.STATE_DIR, "cache")))


def warm_caches(ctx):
    """The steady state of a store its writers maintain: the derived caches (state/cache/) are
    current. Built with the core's own refresh, as the recorder leaves them after each write."""
    index = _index_module()
    refresh = getattr(index, "refresh_all", None)
    if refresh is not None:
        with mstore.StoreLock(ctx.store):
            refresh(ctx.store)


def drop_caches(ctx):
    """A fresh clone (state/ is git-ignored) or a store after a pull: no current derived cache.
    Loading never writes, so it stays this way until something records."""
    shutil.rmtree(_cache_dir(ctx), ignore_errors=True)


BENCHES = [
    Bench("load", "time", _load_argv, 1.3, prepare=warm_caches,
          note="load_memory.py, default budget, derived caches current"),
    Bench("record", "time", _record_argv, 1.3, prepare=warm_caches, before=_big_count, verify=_verify_record,
          note="record_memory.py --topic big: a new fact into the 10k-fact topic"),
    Bench("record_typical", "time", _record_typical_argv, None, prepare=warm_caches,
          note="record_memory.py into the topic closest to %d facts (pure-Python matching)" % 300),
    Bench("hook_session_start", "time", _hook_argv("SessionStart"), 1.3, prepare=warm_caches,
          stdin=_hook_payload("SessionStart", source="startup"),
          note="run_hook.py SessionStart: the loader's context as hook JSON, caches current"),
    Bench("hook_post_tool_use", "time", _hook_argv("PostToolUse"), 1.1,
          stdin=_hook_payload("PostToolUse", tool_name="Write", tool_response={"success": True}),
          note="run_hook.py PostToolUse: one touched file into state/session.json"),
    Bench("hook_pre_compact", "time", _hook_argv("PreCompact"), 1.3,
          stdin=_hook_payload("PreCompact", trigger="auto", custom_instructions=""),
          note="run_hook.py PreCompact: the minimal session state saved"),
    Bench("load_peak_rss", "rss", _load_argv, 40.0, prepare=warm_caches,
          note="peak RSS of one load_memory.py run, caches current"),
    Bench("load_cold", "time", _load_argv, None, prepare=drop_caches,
          note="load_memory.py with no derived cache (fresh clone, after a pull): every items.json parsed"),
    Bench("load_cold_peak_rss", "rss", _load_argv, None, prepare=drop_caches,
          note="peak RSS of one load_memory.py run with no derived cache"),
]
EXTRA_FACTS_PER_RUN = 1  # new facts pre-generated per timed or warm-up run (record uses one each)


def measure_time(bench, ctx, baseline, runs, warmup):
    snapshot = bench.before(ctx) if bench.before else None
    base, cmd = [], []
    calls = 0
    for i in range(warmup + runs):
        dt_base, code = run_timed(baseline, ctx)
        if code != 0:
            explain_failure("the baseline", baseline, code, ctx)
        argv = bench.argv(ctx)
        data = bench.stdin(ctx) if bench.stdin else None
        dt_cmd, code = run_timed(argv, ctx, data)
        calls += 1
        if code != 0:
            explain_failure(bench.name, argv, code, ctx, data)
        if i >= warmup:
            base.append(dt_base)
            cmd.append(dt_cmd)
    if bench.verify:
        bench.verify(ctx, calls, snapshot)
    med, med_base = statistics.median(cmd), statistics.median(base)
    ratio = med / med_base
    target = bench.target
    return {"name": bench.name, "kind": "time", "note": bench.note,
            "median_ms": round(med * 1000, 2), "baseline_median_ms": round(med_base * 1000, 2),
            "ratio": round(ratio, 3), "extra_ms": round((med - med_base) * 1000, 2),
            "target": target, "target_text": "<= %.1fx" % target if target is not None else "-",
            "ok": target is None or ratio <= target, "samples_ms": [round(x * 1000, 2) for x in cmd],
            "baseline_samples_ms": [round(x * 1000, 2) for x in base]}


def measure_rss(bench, ctx, baseline):
    import importlib.util
    usable = hasattr(os, "posix_spawn") and importlib.util.find_spec("resource") is not None  # Unix only
    if not usable:
        return {"name": bench.name, "kind": "rss", "note": bench.note, "skipped": "needs resource and "
                "os.posix_spawn (Unix)", "peak_rss_mb": None, "baseline_peak_rss_mb": None, "ratio": None,
                "extra_mb": None, "target": bench.target, "target_text": _mb_target(bench.target), "ok": True}
    code, base_kib = peak_rss_kib(baseline, ctx)
    if code != 0:
        explain_failure("the baseline", baseline, code, ctx)
    argv = bench.argv(ctx)
    code, kib = peak_rss_kib(argv, ctx)
    if code != 0:
        explain_failure(bench.name, argv, code, ctx)
    mb, base_mb = kib / 1024.0, base_kib / 1024.0
    return {"name": bench.name, "kind": "rss", "note": bench.note, "peak_rss_mb": round(mb, 2),
            "baseline_peak_rss_mb": round(base_mb, 2), "ratio": round(mb / base_mb, 3),
            "extra_mb": round(mb - base_mb, 2),
            "target": bench.target, "target_text": _mb_target(bench.target),
            "ok": bench.target is None or mb <= bench.target}


def _mb_target(target):
    return "<= %.0f MB" % target if target is not None else "-"


# --- output ---------------------------------------------------------------------------------------

def _rapidfuzz_version():
    try:
        import rapidfuzz
    except ImportError:
        return None
    return getattr(rapidfuzz, "__version__", "present")


def print_table(summary):
    rows = [("name", "median", "baseline", "extra", "ratio", "target", "result")]
    for r in summary["results"]:
        if r["kind"] == "time":
            value, base = "%.1f ms" % r["median_ms"], "%.1f ms" % r["baseline_median_ms"]
            extra = "%+.1f ms" % r["extra_ms"]
        elif r.get("skipped"):
            rows.append((r["name"], "n/a", "n/a", "", "", r["target_text"], "skipped"))
            continue
        else:
            value, base = "%.1f MB" % r["peak_rss_mb"], "%.1f MB" % r["baseline_peak_rss_mb"]
            extra = "%+.1f MB" % r["extra_mb"]
        verdict = "info" if r["target"] is None else "ok" if r["ok"] else "MISS"
        rows.append((r["name"], value, base, extra, "%.2fx" % r["ratio"], r["target_text"], verdict))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
        if n == 0:
            print("  ".join("-" * w for w in widths))
    s = summary["store"]
    print("store: %d facts / %d topics + %s %d facts, %d daily files (%d lines), MEMORY.md %d lines, "
          "items.json %.1f MB; built in %.1f s"
          % (s["facts"], s["topics"], BIG_TOPIC, s["big_topic_facts"], s["daily_files"], s["daily_lines"],
             s["memory_md_lines"], s["items_json_bytes"] / 1e6, summary["build_seconds"]))
    print("summary: python=%s executable=%s rapidfuzz=%s cpus=%s runs=%d warmup=%d total=%.1fs"
          % (summary["python"], summary["executable"], summary["rapidfuzz"] or "absent", summary["cpus"],
             summary["runs"], summary["warmup"], summary["total_seconds"]))


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Every figure is a ratio to a bare interpreter start measured in the same run with the same "
               "interpreter (%s), so a slow or busy machine moves both. Exit 0, or with --check 1 when a "
               "target is missed; 2 on a usage or setup error." % sys.executable,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--facts", type=int, default=10000, help="active facts spread over the topics (default %(default)s)")
    p.add_argument("--topics", type=int, default=30, help="number of topics (default %(default)s)")
    p.add_argument("--big-facts", type=int, default=10000,
                   help="facts in the extra topic '%s' that record writes into (default %%(default)s)" % BIG_TOPIC)
    p.add_argument("--days", type=int, default=365, help="daily files of ~20 lines (default %(default)s)")
    p.add_argument("--runs", type=int, default=15, help="timed runs of each command and of the baseline (default %(default)s)")
    p.add_argument("--warmup", type=int, default=2, help="untimed runs first (default %(default)s)")
    p.add_argument("--seed", type=int, default=3, help="random seed of the synthetic store (default %(default)s)")
    p.add_argument("--only", help="comma-separated benchmark names (default: all of %s)"
                   % ", ".join(b.name for b in BENCHES))
    p.add_argument("--keep", metavar="DIR", help="build the project in DIR (new or empty) and keep it")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = p.parse_args(argv)
    for name in ("facts", "big_facts", "days"):
        if getattr(args, name) < 0:
            p.error("--%s must be >= 0" % name.replace("_", "-"))
    if args.topics < 1 or args.runs < 1 or args.warmup < 0:
        p.error("--topics and --runs must be >= 1, --warmup >= 0")
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in [b.name for b in BENCHES]]
        if unknown:
            p.error("unknown benchmark(s): %s" % ", ".join(unknown))
        args.only = wanted
    if args.keep and os.path.exists(args.keep) and os.listdir(args.keep):
        p.error("--keep %s: the folder exists and is not empty" % args.keep)
    return args


def main(argv=None):
    args = parse_args(argv)
    started = time.perf_counter()
    python = os.path.realpath(sys.executable)  # the interpreter itself, never a pyenv-style shim
    benches = [b for b in BENCHES if not args.only or b.name in args.only]
    work = tempfile.mkdtemp(prefix="m3l-bench-")
    try:
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            project = os.path.abspath(args.keep)
        else:
            project = os.path.join(work, "project")
            os.makedirs(project)
        t0 = time.perf_counter()
        new_needed = (args.runs + args.warmup) * EXTRA_FACTS_PER_RUN * len(benches)
        stats, new_facts = build_store(project, args.facts, args.topics, args.days, args.big_facts, args.seed,
                                       new_needed)
        build_seconds = time.perf_counter() - t0
        ctx = Context(python, project, clean_env(), new_facts)
        # Run the skill as a project has it: installed into the project (byte-code cached beside it,
        # as in real use, in the temp project rather than the repository).
        from memory_core import install
        ctx.skill = os.path.join(project, install.HOSTS["claude"].skill_dir)
        install.copy_skill(ctx.skill)
        ctx.typical_topic = stats["typical_topic"]
        baseline = [python, "-c", "pass"]
        results = []
        for bench in benches:
            if bench.prepare:
                bench.prepare(ctx)
            if bench.kind == "time":
                results.append(measure_time(bench, ctx, baseline, args.runs, args.warmup))
            else:
                results.append(measure_rss(bench, ctx, baseline))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    summary = {"python": platform.python_version(), "executable": python, "rapidfuzz": _rapidfuzz_version(),
               "cpus": os.cpu_count(), "platform": platform.platform(), "runs": args.runs,
               "warmup": args.warmup, "store": stats, "build_seconds": round(build_seconds, 2),
               "kept": project if args.keep else None, "results": results,
               "all_ok": all(r["ok"] for r in results),
               "total_seconds": round(time.perf_counter() - started, 2)}
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    else:
        print_table(summary)
        if args.keep:
            print("kept: %s" % project)
    return 1 if args.check and not summary["all_ok"] else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as exc:
        sys.stderr.write("bench: %s\n" % exc)
        sys.exit(2)
