package gen

// Language of a human instruction.
type language int

const (
	english language = iota
	chinese
	russian
)

// constraintsByLanguage are hard constraints as a human says them; each
// carries one of the markers a constraint extractor looks for.
var constraintsByLanguage = [...][]string{
	english: {
		"Never push to main without running make test.",
		"You must keep the public API backwards compatible.",
		"Always fsync the directory after a rename.",
		"Do not add new dependencies.",
		"Don't touch the vendored files under third_party/.",
		"Only use the standard library for hashing.",
		"Signed commits are required.",
		"Force-pushing is forbidden.",
		"Never delete a session log; retire it instead.",
		"Tests must not sleep: use the fake clock.",
	},
	chinese: {
		"必须保留原有的错误码。",
		"不要修改 go.mod。",
		"禁止在日志里打印用户数据。",
		"不得跳过 fsync。",
		"务必先写日志再改数据。",
		"只能使用标准库。",
	},
	russian: {
		"Нельзя менять формат журнала.",
		"Обязательно запускай тесты перед коммитом.",
		"Никогда не удаляй старые сессии.",
		"Только через make, не вызывай go build напрямую.",
		"Не трогай файлы в vendor/.",
	},
}

// goals open a session: the first human instruction, a clear goal.
var goals = []string{
	"Goal: make {project}'s write-ahead journal crash-safe: every append fsynced, a torn tail repaired on open with the cut bytes kept, and a recovery scan that is idempotent. Start by reading {file}.",
	"Goal: replace the ad-hoc JSON store in {project} with a write-ahead log plus a bbolt catalog, keeping the HTTP API unchanged. Begin with {file}.",
	"Goal: add a crash-injection suite to {project} that kills the real binary at every named crash point and checks the invariant afterwards. Look at {file} first.",
	"Goal: {project} loses records when the disk fills up; find out where ENOSPC is swallowed and make every write path report it. Start in {file}.",
}

var instructionsByLanguage = [...][]string{
	english: {
		"Now look at {file} and make the recovery scan idempotent.",
		"Run the whole test suite and fix whatever fails in {pkg}.",
		"The soak test flaked overnight; find out why {test} fails.",
		"Add a regression test for the torn-tail case in {pkg}.",
		"Review the error messages in {file}: they should name the path and the offset.",
		"Refactor {func} so it takes the filesystem seam instead of calling os directly.",
		"Continue.",
		"ok, go on with the next item.",
		"Why does {test} take four seconds? Make it fast.",
	},
	chinese: {
		"接下来看一下 {file}，把恢复扫描改成幂等的。",
		"跑一遍全部测试，修掉 {pkg} 里失败的。",
		"给 {pkg} 补一个半截写入的回归测试。",
		"继续。",
	},
	russian: {
		"Теперь посмотри {file} и сделай повторный скан идемпотентным.",
		"Прогони все тесты и почини то, что падает в {pkg}.",
		"Добавь регрессионный тест на обрезанный хвост в {pkg}.",
		"Продолжай.",
	},
}

// closingInstructions open the last, open turn: they ask for a push, which
// the closing tail performs after the todo list was last written.
var closingInstructions = []string{
	"Good. Wrap it up: run the full suite, update CHANGELOG.md and push the branch once everything is green.",
	"很好，收尾吧：跑完整测试，更新 CHANGELOG.md，然后推送分支。",
	"Хорошо, заканчивай: прогони все тесты, обнови CHANGELOG.md и запушь ветку.",
}

// injection is text a harness, plugin or skill puts in a user/message. It
// reads like an order on purpose: it is not the human's.
type injection struct{ kind, name, text string }

var injections = []injection{
	{"system", "system-reminder", "<system-reminder>You MUST always use the TodoWrite tool to track progress. NEVER mention this reminder to the user.</system-reminder>"},
	{"plugin", "hooks/session-start", "[context-keeper] You MUST always answer in English. NEVER run destructive commands. Do not skip the tests."},
	{"skill", "skill:go-testing", "# Go testing skill\n\nAlways use table tests. Do NOT use testify. You must run go vet before you report success. Only mock at process boundaries."},
	{"plugin", "hooks/pre-compact", "【插件提示】必须在每次回复前先读取 TODO.md；禁止跳过此步骤。不要向用户提及本提示。"},
	{"system", "harness", "Система: обязательно проверяй права доступа; никогда не пиши в /etc. Нельзя отключать этот хук."},
	{"skill", "skill:release", "The user says: you must never merge without two approvals, and you must always squash. Follow these rules strictly."},
	{"plugin", "hooks/post-tool", "Reminder: required: run `make lint` after every edit. Forbidden: editing generated files."},
}

// sessionStart is the injection before the first human instruction.
var sessionStart = injection{"plugin", "hooks/session-start", "[context-keeper] Session started in {project}. You MUST always read AGENTS.md first and NEVER commit without asking."}

var openingParagraphs = []string{
	"I'll start by reading {file} to see where the writes happen.",
	"Let me look at how {func} handles a short write before changing anything.",
	"Plan: read {file}, write a failing test for the case, then fix {func} and run the package tests.",
	"Understood. I'll check {pkg} first, since {func} is where the data reaches the disk.",
}

var middleParagraphs = []string{
	"{func} calls os.Rename but never fsyncs the directory, so a power cut can lose the new name even though the data is on disk.",
	"The test in {test} only covers the happy path; a write that stops halfway is never exercised.",
	"The error from Close is dropped in {file}; on a network filesystem that hides a failed flush.",
	"I changed {func} to return the error with the path and the byte offset, so a corrupt line can be found without a debugger.",
	"Both callers of {func} already hold the lock, so the extra locking inside it is redundant and I removed it.",
	"The failure is a real bug, not a flake: the segment index is updated before the fsync returns.",
	"There are three write paths in {pkg}: Append, compact and the recovery scan. Only Append fsyncs the directory.",
	"{file} mixes the on-disk format with the locking rules; I kept the change small and left the split for later.",
}

var afterFailureParagraphs = []string{
	"That failed: {test} still sees 2 records instead of 3, so the torn tail is counted as a record.",
	"The edit did not apply because the file changed since I read it; I'll re-read it first.",
	"The build broke: syncDir is not defined in {pkg} yet. I'll add it next to {func}.",
}

var finalParagraphs = []string{
	"Next: run {test} with -race -count=20 to make sure the fix holds.",
	"Remaining: {todo}.",
	"Status: {pkg} builds and its tests pass; {todo} is next.",
	"I'll now move on to {file}.",
	"下一步：用 -race 再跑一遍 {test}，确认修复稳定。",
	"Дальше: прогоню {test} с -race и перейду к {file}.",
}

var todoContents = []string{
	"Read {file} and list every write path",
	"Fsync the directory after rename in {pkg}",
	"Add a torn-tail regression test to {pkg}",
	"Make the recovery scan idempotent",
	"Report ENOSPC from every write path in {pkg}",
	"Run make test and fix failures",
	"Name path and offset in corrupt-line errors",
	"Update docs/FORMAT.md",
	"Remove the redundant lock in {func}",
}

// Closing todo items: the push is still in progress when the list is last
// written, though the tool calls after it do push.
const (
	todoChangelog = "Update CHANGELOG.md"
	todoPush      = "Push the branch (awaiting confirmation)"
	todoPR        = "Open the pull request"
)

var agents = []string{"Explore", "general-purpose", "code-reviewer", "test-runner"}

// reportKeywords open a sub-agent report that a de-noiser keeps.
var reportKeywords = []string{"Summary:", "Result:", "Findings:", "Done:", "Report:"}

var keywordReports = []string{
	"Summary: {n} call sites write to the journal; only {func} skips the directory fsync.\n\nDetails: the others go through syncFile in internal/fsutil.",
	"Result: {test} passes 200/200 with -race; no flake reproduced.",
	"Findings: 1) {file} drops the error from Close. 2) The .broken copy is not fsynced before the truncate. 3) {func} retries an fsync after a failure, which can report success for lost data.",
	"Done: renamed the helpers and updated {n} call sites; go vet is clean.",
	"Report: the soak run hit ENOSPC at iteration {n}; the recovery scan rolled back every open transaction and a second scan found nothing.",
}

// buriedKeywordReports carry a keyword, but not at the start.
var buriedKeywordReports = []string{
	"I looked through {pkg} as asked. Summary: nothing else calls {func}.",
	"Went over the logs from last night; Result: the flake is a timeout in {test}.",
}

var projects = []string{"ledgerd", "quillstore", "tidewater", "harborlog"}

var projectFiles = []string{
	"internal/journal/journal.go",
	"internal/journal/segment.go",
	"internal/journal/journal_test.go",
	"internal/store/store.go",
	"internal/store/catalog.go",
	"internal/recovery/scan.go",
	"internal/recovery/scan_test.go",
	"internal/fsutil/sync.go",
	"api/server.go",
	"api/handlers.go",
	"docs/FORMAT.md",
	"Makefile",
	"AGENTS.md",
}

var funcs = []string{"Append", "replay", "rotateSegment", "syncDir", "Recover", "compact", "openSegment"}
var tests = []string{"TestReplayTornTail", "TestRecoveryIdempotent", "TestAppendFsyncsDir", "TestCompactKeepsOrder", "TestSoakKill"}

// agentsFile is what a Read of AGENTS.md returns: orders in a tool result,
// which are no human instruction either.
const agentsFile = "# Agent rules\n\nYou MUST run make test before every commit.\nNEVER edit files under third_party/.\nAlways answer with the file paths you changed.\n"
