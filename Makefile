# graft: run "make" for the list of targets.
GO       ?= go
BIN      := bin/graft
DEMO_HOME := $(CURDIR)/build/demo-home
PKGS     := ./...
# The version stamped in (scripts/version.sh: the nearest v* tag, else
# v0.0.0-dev+<revision>, -dirty for a changed tree); make VERSION=v1.2.3 dist.
VERSION  ?= $(shell ./scripts/version.sh)
VPKG     := github.com/graft-project/graft/version
LDFLAGS  := -X '$(VPKG).stamped=$(VERSION)' -X $(VPKG).stampedRevision=$(shell ./scripts/version.sh rev) -X $(VPKG).stampedModified=$(shell ./scripts/version.sh modified)
DIST     := dist
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64

.DEFAULT_GOAL := help

.PHONY: help
help: ## print the targets
	@echo "graft make targets:"
	@grep -E '^[a-z][a-z-]*:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | awk -F'\t' '{printf "  %-13s %s\n", $$1, $$2}'

.PHONY: build
build: ## build bin/graft
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/graft

.PHONY: dist
dist: ## graft for linux and darwin, amd64 and arm64 (static, -trimpath, version stamped) in dist/, with SHA256SUMS, checked
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; echo "dist/graft-$$os-$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" -o $(DIST)/graft-$$os-$$arch ./cmd/graft || exit 1; \
	done
	@cd $(DIST) && if command -v sha256sum >/dev/null; then sha256sum graft-*; else shasum -a 256 graft-*; fi > SHA256SUMS
	@./scripts/distcheck.sh $(DIST) '$(VERSION)'

.PHONY: test
test: ## the default suite: unit, CLI scripts, short fuzz, CI-sized crash suite
	$(GO) mod download
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 20m $(PKGS)
	# the log decoder without its amd64 assembly (other platforms' path)
	$(GO) vet -tags purego ./session ./session/logscan
	$(GO) test -count=1 -tags purego ./session ./session/logscan
	# fuzz budgets are execution counts, not durations: go1.26's fuzz coordinator can fail a
	# wall-clock -fuzztime with a spurious "context deadline exceeded" on a loaded machine
	# (golang/go#75804, fixed in go1.27); a count has no deadline to race.
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzScan$$' -fuzztime 40000x -fuzzminimizetime 200x ./session
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzDecodeLine$$' -fuzztime 150000x -fuzzminimizetime 200x ./session
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzStringFields$$' -fuzztime 200000x -fuzzminimizetime 200x ./session/logscan
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzScanFoldSumsLongLine$$' -fuzztime 600x -fuzzminimizetime 20x ./session
	# the tape's promises on sessions made from random bytes (budget, UTF-8, determinism, snapshot, human origin, seqs)
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzBuild$$' -fuzztime 2000x -fuzzminimizetime 50x ./tape
	@echo "make test: ok"

.PHONY: fuzz
fuzz: ## every fuzzer at length (execution counts; about 25 minutes on 2 cores): the tape, each importer's resume, Codex's code-mode scripts, the log decoder, anchors, the journal, the settings files graft edits, the hooks, the exports, the scan index and import cursors, graft find's line filter
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzBuild$$' -fuzztime 40000x -fuzzminimizetime 100x ./tape
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzClaudeCodeImportResumes$$' -fuzztime 8000x -fuzzminimizetime 100x ./importer/claudecode
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzCodexImportResumes$$' -fuzztime 8000x -fuzzminimizetime 100x ./importer/codex
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzCodeModeCall$$' -fuzztime 500000x -fuzzminimizetime 100x ./importer/codex
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzGeminiImportResumes$$' -fuzztime 8000x -fuzzminimizetime 100x ./importer/gemini
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzQwenImportResumes$$' -fuzztime 8000x -fuzzminimizetime 100x ./importer/qwen
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzScan$$' -fuzztime 400000x -fuzzminimizetime 100x ./session
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzDecodeLine$$' -fuzztime 1500000x -fuzzminimizetime 100x ./session
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzStringFields$$' -fuzztime 2000000x -fuzzminimizetime 100x ./session/logscan
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzScanFoldSumsLongLine$$' -fuzztime 6000x -fuzzminimizetime 100x ./session
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzExtract$$' -fuzztime 500000x -fuzzminimizetime 100x ./anchors
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzWordsAsByRunes$$' -fuzztime 500000x -fuzzminimizetime 100x ./anchors
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzASCIIPrefilterKeepsEveryMarker$$' -fuzztime 500000x -fuzzminimizetime 100x ./anchors
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 500000x -fuzzminimizetime 100x ./journal
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzInstallUninstallRoundTrip$$' -fuzztime 30000x -fuzzminimizetime 100x ./hookinstall
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzMCPInstallUninstallRoundTrip$$' -fuzztime 30000x -fuzzminimizetime 100x ./hookinstall
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzPluginInstallUninstallRoundTrip$$' -fuzztime 30000x -fuzzminimizetime 100x ./hookinstall
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzHookOnAnyTranscript$$' -fuzztime 10000x -fuzzminimizetime 50x ./hookrun
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzRenderImportsBack$$' -fuzztime 20000x -fuzzminimizetime 100x ./hosts
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzADamagedScanIndexNeverChangesTheTape$$' -fuzztime 5000x -fuzzminimizetime 100x ./graft
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzADamagedCursorNeverChangesTheSession$$' -fuzztime 10000x -fuzzminimizetime 100x ./importer
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzMayHoldKeepsEveryMatch$$' -fuzztime 300000x -fuzzminimizetime 100x ./graft
	@echo "make fuzz: ok"

.PHONY: testrace
testrace: ## the unit suite under the race detector
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

.PHONY: demo
demo: build ## generate a session, prepare, commit, status, recall, find (throw-away home under build/)
	@rm -rf $(DEMO_HOME)
	@GRAFT_HOME=$(DEMO_HOME) ./scripts/demo.sh $(BIN)

.PHONY: bench
bench: build ## benchmarks: prints a table of ratios (graft vs baseline, same run)
	$(GO) run ./bench/cmd/benchtable

.PHONY: scale
scale: ## growth ratios of prepare and audit (issue 19), the pasted text at 12.5 and 25 MiB, and its peak RSS
	GRAFT_SCALE=big $(GO) test -count=1 -timeout 30m -run '^TestScale' -v ./cmd/graft

.PHONY: crashtest
crashtest: build ## the crash-injection suite, with its table (children run bin/graft-crash)
	$(GO) build -tags crashpoints -o bin/graft-crash ./cmd/graft
	$(BIN) crashtest --bin bin/graft-crash

.PHONY: soak
soak: build ## the long crash suite (2,000 random kills)
	$(GO) build -tags crashpoints -o bin/graft-crash ./cmd/graft
	$(BIN) crashtest --soak 2000 --bin bin/graft-crash

.PHONY: lint
lint: ## go vet and a gofmt check
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

.PHONY: clean
clean: ## remove build outputs
	rm -rf bin build $(DIST)

.PHONY: bench-cluster
bench-cluster: build ## commits/s and recovery time, 1-8 workers, file store vs etcd (embedded 3-member cluster)
	$(GO) run ./bench/cmd/clusterbench

.PHONY: hosts-latest
hosts-latest: ## the real-host tests against each host's latest npm release beside the pinned ones: a version × check table
	$(GO) run ./internal/hosttest/cmd/hostslatest

.PHONY: fidelity
fidelity: ## what the tape carries of what the next window must know: graft vs the hook excerpt, the tail, the host's summary (testdata/fidelity)
	$(GO) run ./bench/cmd/fidelity

.PHONY: fidelity-blocks
fidelity-blocks: ## make fidelity, then where the tape spends its room on the tuning cases: per kind of block, its characters and the facts only it carries
	$(GO) run ./bench/cmd/fidelity -blocks

.PHONY: fidelity-chain
fidelity-chain: ## what a handoff loses: each end cut of the truth set handed on once at its 60 % cut, and twice (at half its lines and at it), the last generation's tape beside the tape of the same work with no handoff
	$(GO) run ./bench/cmd/fidelity -chain

.PHONY: fidelity-sweep
fidelity-sweep: ## graft's recall on the truth set at tape budgets from 12,000 to 64,000 characters: what room brings, what a chooser that knew the facts carries within the default, what the default cuts per block and its facts per 1,000 characters, what no budget does and where its evidence is (under a minute)
	$(GO) run ./bench/cmd/fidelity -sweep 12000,16000,24000,32000,64000
