# damone: developer and CI entry points. `make` (or `make help`) lists them.
#
# To add a target, give it a `## one-line description` after its
# prerequisites: `help` lists every target that has one, under the latest
# `##@ Section` line above it.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
MAKEFLAGS += --warn-undefined-variables --no-builtin-rules

# buf is pinned in tools/go.mod (kept apart from go.mod, where it would drag
# in unrelated upgrades); the protoc plugins are `tool` lines of go.mod.
BUF := go tool -modfile=tools/go.mod buf
# The committed image that `make breaking` compares the protos against.
BREAKING_BASELINE := proto/baseline/damone-v1.binpb

.PHONY: help
help: ## List the targets
	@awk 'BEGIN { FS = ":.*## " } \
		/^##@ / { printf "\n%s\n", substr($$0, 5); next } \
		/^[a-zA-Z0-9_.-]+:.*## / { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

##@ Build and run

# The one place the version is kept is the VERSION file; scripts/version
# makes a development build's X.Y.Z-dev+gCOMMIT of it (make release stamps
# X.Y.Z itself; docs/releases.md).
VERSION ?= $(shell scripts/version)
LDFLAGS := -s -w -X main.version=$(VERSION)
BIN := bin/damone

.PHONY: build
build: ## Build bin/damone (static, trimmed paths, version stamped)
	CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/damone

.PHONY: run
run: build ## Run the service on its defaults (gRPC :9090, REST :8080, metrics :9102)
	@# exec: Ctrl-C reaches the server itself, which drains and exits 0
	@# (go run would report the interrupted child as a failure).
	exec ./$(BIN) serve

##@ Tests and checks

.PHONY: deps
deps: ## Install what tests and generation need beyond Go, if missing (Debian packages, npm ci)
	scripts/test-deps

.PHONY: test
test: deps ## Run every test: gofmt, vet, unit, property, end-to-end (a throwaway PostgreSQL), the Helm chart, a 60 s soak, then make interop
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'))"; \
	if [[ -n "$$unformatted" ]]; then echo "gofmt would change:" >&2; echo "$$unformatted" >&2; exit 1; fi
	go vet ./...
	scripts/test-postgres run bash -c 'go test ./... && go test -race ./internal/games/ ./internal/server/ ./internal/metrics/ ./internal/store/...'
	$(MAKE) --no-print-directory test-rules
	$(MAKE) --no-print-directory test-chart
	$(MAKE) --no-print-directory soak DURATION=60s SOAK_KILL_EVERY=12s
	scripts/interop

# make test-faults: the traffic phase of each fault run lasts at least
# FAULTS_SECONDS (every fault kind is injected once anyway, about 2 min).
FAULTS_SECONDS ?= 0

.PHONY: test-faults
test-faults: deps ## Fault test (docs/RELIABILITY.md): 3 replicas on one PostgreSQL, then one embedded node, under injected faults, the history checked; then each planted bug must be caught. FAULTS_SECONDS=600 for a longer run
	DAMONE_FAULTS_SECONDS=$(FAULTS_SECONDS) go test -tags faults ./internal/faulttest/ -run '^(TestFaults|TestFaultsEmbedded|TestPlantedBugs)$$' -count=1 -v -timeout 60m

.PHONY: test-long
test-long: ## Also run the deep perft counts (depth 7)
	go test ./internal/engine/ -long

.PHONY: bench
bench: ## Run the engine benchmarks (perft, move generation) as docs/BENCHMARKS.md reports them
	go test ./internal/engine/ -run '^$$' -bench . -benchtime 2s -count 5

.PHONY: fuzz
fuzz: ## Fuzz the position, move and PDN parsers for 30 s each
	go test ./internal/engine/ -run '^$$' -fuzz FuzzParsePosition -fuzztime 30s
	go test ./internal/engine/ -run '^$$' -fuzz FuzzParseMove -fuzztime 30s
	go test ./internal/pdn/ -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 30s

##@ Service load and soak (cmd/damone-bench; docs/BENCHMARKS.md)

BENCH_BIN := bin/damone-bench
# make soak: how long, and how often the server is killed (SIGKILL) and
# restarted; make test runs DURATION=60s SOAK_KILL_EVERY=12s.
DURATION ?= 10m
SOAK_KILL_EVERY ?= 1m

$(BENCH_BIN): FORCE
	go build -o $(BENCH_BIN) ./cmd/damone-bench

.PHONY: soak
soak: build $(BENCH_BIN) ## A real server under mixed load for DURATION (10m), killed and restarted every SOAK_KILL_EVERY (1m): no acknowledged move lost, no upward trend
	$(BENCH_BIN) soak --server-bin $(BIN) --duration $(DURATION) --kill-every $(SOAK_KILL_EVERY)

.PHONY: bench-moves
bench-moves: build $(BENCH_BIN) ## Moves/s and server CPU per move of each store (a throwaway PostgreSQL too) at 64 games and alone; long games
	scripts/test-postgres run bash -c '$(BENCH_BIN) moves --server-bin $(BIN) --postgres-dsn "$$DAMONE_TEST_POSTGRES_DSN"'

.PHONY: bench-fanout
bench-fanout: build $(BENCH_BIN) ## Fan-out: 3 replicas on a throwaway PostgreSQL (fsync on), moves on one, 1,000 watchers on two, beside one replica: events/s, commit to delivery, lost events, CPU per event
	TEST_PG_FSYNC=on scripts/test-postgres run bash -c '$(BENCH_BIN) fanout --server-bin $(BIN) --postgres-dsn "$$DAMONE_TEST_POSTGRES_DSN"'

.PHONY: bench-pdn
bench-pdn: ## Peak RSS and MB/s of damone pdn validate on 1 MB, 50 MB and 500 MB streamed PDN inputs (flat memory; fails if a run judges the wrong games)
	go test ./cmd/damone/ -run '^$$' -bench 'PdnValidateRSS' -benchtime 1x

##@ API contract (proto/damone/v1 -> gen/)

.PHONY: generate
generate: deps ## Regenerate gen/ (Go messages, gRPC stubs, gateway, OpenAPI; TypeScript, Python, C++, Java and Ruby clients) from proto/
	$(BUF) generate
	$(BUF) generate --template buf.gen.clients.yaml
	$(BUF) generate --template buf.gen.cpp-java.yaml
	$(BUF) generate --template buf.gen.ruby.yaml
	@# The heartbeat in the v2 stream envelopes, the OpenAPI 3 document,
	@# their embed.go files and Swagger UI's files (gen/swaggerui).
	go run ./cmd/damone-openapi

.PHONY: check-gen
check-gen: generate ## Regenerate and fail if gen/ differs from HEAD or has untracked files
	@status="$$(git status --porcelain --untracked-files=all --ignored -- gen/)"; \
	if [[ -n "$$status" ]] || ! git diff --quiet HEAD -- gen/; then \
		echo "check-gen: gen/ is not what 'make generate' makes from the committed protos:" >&2; \
		echo "$$status" >&2; \
		git diff --stat HEAD -- gen/ >&2 || true; \
		echo "check-gen: run 'make generate' and commit gen/." >&2; \
		exit 1; \
	fi
	@echo "check-gen: gen/ is up to date"

.PHONY: lint
lint: ## Lint the protos (buf STANDARD + COMMENTS) and check their formatting
	$(BUF) lint
	$(BUF) format --diff --exit-code

.PHONY: breaking
breaking: ## Fail on changes to the protos that break the committed baseline
	$(BUF) breaking --against $(BREAKING_BASELINE)

.PHONY: breaking-baseline
breaking-baseline: ## Deliberately accept the current protos as the new breaking baseline
	$(BUF) build --output $(BREAKING_BASELINE)
	@echo "breaking-baseline: wrote $(BREAKING_BASELINE); commit it with the proto change."

##@ Deploy (Dockerfile, k8s/; see docs/deploy.md)

IMAGE ?= damone:$(VERSION)
MANIFESTS_DIR ?= bin/manifests

.PHONY: image
image: ## Build the container image IMAGE (default damone:VERSION) with docker: needs a Docker engine, which CI lacks
	@command -v docker >/dev/null || { echo "image: no docker command here; build the image where a Docker engine runs" >&2; exit 1; }
	docker build --build-arg VERSION=$(VERSION) -t $(IMAGE) .

.PHONY: manifests
manifests: ## Render every k8s/overlays/* with kustomize's Go API into MANIFESTS_DIR (default bin/manifests; no kubectl needed)
	go run ./k8s/cmd/damone-manifests -k8s k8s -out $(MANIFESTS_DIR)

.PHONY: manifests-check
manifests-check: ## Check the manifests: strict decoding, semantic checks, the binary they run (part of make test)
	go test ./k8s/...

# The rules' one copy is the PrometheusRule; promtool reads the plain rules
# file damone-rules derives from it, and finds a test's rule_files beside
# the test, so both go into RULES_DIR.
RULES_DIR := bin/rules

.PHONY: test-rules
test-rules: deps ## promtool: check the alerting and recording rules (k8s/base/prometheusrule.yaml) and run their unit tests (k8s/monitoring/tests; part of make test)
	rm -rf $(RULES_DIR) && mkdir -p $(RULES_DIR)
	go run ./k8s/cmd/damone-rules -k8s k8s -out $(RULES_DIR)/damone.rules.yaml
	cp k8s/monitoring/tests/*_test.yaml $(RULES_DIR)/
	promtool check rules $(RULES_DIR)/damone.rules.yaml
	cd $(RULES_DIR) && promtool test rules *_test.yaml

# The Helm chart (charts/damone) is rendered, linted and packaged by Helm's
# Go packages in tools/helm, a module of its own (Helm's dependencies stay
# out of go.mod and out of tools/k8s, whose build list makes kube-apiserver).
.PHONY: test-chart
test-chart: ## The Helm chart: renders what k8s/base and each overlay render (object by object), helm lint, the values schema, every damone serve flag reachable (part of make test)
	cd tools/helm && go test -count=1 ./...

.PHONY: chart
chart: ## Package charts/damone as DIST/damone-VERSION.tgz, version and appVersion VERSION (make release does it too)
	cd tools/helm && go run ./cmd/damone-chart package -version $(VERSION) -out $(abspath $(DIST))

.PHONY: test-k8s
test-k8s: ## Apply every overlay and the Helm chart with each values file to a real kube-apiserver (tools built once by scripts/k8s-tools; many minutes when cold): accepted, idempotent, upgradable; rollouts and evictions on fake nodes
	scripts/k8s-tools build
	cd tools/k8s && go test -count=1 -v ./apiserver/

##@ Endgame tablebases (internal/egtb; docs/engine.md, Endgame tablebases)

EGTB_DIR ?= egtb
EGTB_PIECES ?= 5
EGTB_THREADS ?= 2

.PHONY: egtb
egtb: build ## Build the tablebases with up to EGTB_PIECES (5) pieces into EGTB_DIR (resumes), then verify them
	./$(BIN) egtb build --pieces $(EGTB_PIECES) --threads $(EGTB_THREADS) --out $(EGTB_DIR)
	./$(BIN) egtb verify --quiet --threads $(EGTB_THREADS) $(EGTB_DIR)

EGTB_PLAY_DIR ?= egtb4

.PHONY: egtb-play
egtb-play: build ## Build the <= 4-piece set into EGTB_PLAY_DIR (resumes), then play 500 won and 200 drawn positions sampled from it against the tables' best defence (TestTablebasePlay)
	./$(BIN) egtb build --pieces 4 --threads $(EGTB_THREADS) --out $(EGTB_PLAY_DIR)
	DAMONE_EGTB_DIR=$(abspath $(EGTB_PLAY_DIR)) go test ./internal/search/ -run '^TestTablebasePlay$$' -count 1 -v

##@ Engine play (docs/engine.md, docs/BENCHMARKS.md)

# The published matches: 100 pairs each, seed 1, openings after 4 random
# plies; 100 ms a move against the baselines (the issue's equal-time example). Long
# (about 25 minutes on 2 cores), so not part of `make test`.
MATCH_PAIRS ?= 100
MATCH_TIME ?= 100ms
MATCH_SELF_TIME ?= 20ms
MATCH_SELF_TIME4 ?= 80ms
MATCH_FLAGS ?= --pairs $(MATCH_PAIRS) --openings-plies 4 --seed 1 --concurrency 2
MATCH_BIN := bin/damone-match

.PHONY: match
match: match-random match-greedy match-playout match-self ## Run every published engine match (long: not in make test)

$(MATCH_BIN): FORCE
	go build -o $(MATCH_BIN) ./cmd/damone

.PHONY: FORCE
FORCE:

.PHONY: match-random
match-random: $(MATCH_BIN) ## Engine vs the random mover at MATCH_TIME a move
	$(MATCH_BIN) match --player1 engine:movetime=$(MATCH_TIME) --player2 random $(MATCH_FLAGS) --sprt 0,200

.PHONY: match-greedy
match-greedy: $(MATCH_BIN) ## Engine vs the greedy one-ply material player at MATCH_TIME a move
	$(MATCH_BIN) match --player1 engine:movetime=$(MATCH_TIME) --player2 greedy $(MATCH_FLAGS) --sprt 0,200

.PHONY: match-playout
match-playout: $(MATCH_BIN) ## Engine vs the Dagaz-style playout player, both at MATCH_TIME a move
	$(MATCH_BIN) match --player1 engine:movetime=$(MATCH_TIME) --player2 playout:movetime=$(MATCH_TIME) $(MATCH_FLAGS) --sprt 0,200

.PHONY: match-self
match-self: $(MATCH_BIN) ## Engine at 4x time (MATCH_SELF_TIME4) vs itself at 1x (MATCH_SELF_TIME)
	$(MATCH_BIN) match --player1 engine:movetime=$(MATCH_SELF_TIME4) --player2 engine:movetime=$(MATCH_SELF_TIME) $(MATCH_FLAGS) --sprt 0,50

.PHONY: bench-search
bench-search: ## Search speed (nodes/s), depth reached in 1 s from the start, cancellation latency
	go test ./internal/search/ -run '^$$' -bench 'Search$$|Cancellation|DepthInOneSecond' -benchtime 5x -count 3

##@ Clients in other languages (gen/ts, gen/python, gen/cpp, gen/java, gen/ruby, clients/)

.PHONY: interop
interop: deps ## Build and start a real server, then run every client's interop cases (Go, TypeScript, Python, C++, Java, Ruby) and examples against it (part of make test)
	scripts/interop

##@ Releases and client packages (docs/releases.md)

ALLOW_DIRTY ?=
DIST ?= dist

.PHONY: release
release: deps ## Build DIST (dist/) from a clean tree: linux amd64+arm64 binaries (built twice, bytes compared), npm tarball, Python wheel+sdist, SBOMs, SHA256SUMS; ALLOW_DIRTY=1 for a dirty tree
	scripts/release --out $(DIST) $(if $(ALLOW_DIRTY),--allow-dirty)

.PHONY: packages-test
packages-test: ## Install DIST's npm tarball, Python wheel and the Go consumer module into scratch projects and run each example against a real server
	scripts/packages-test $(DIST)
