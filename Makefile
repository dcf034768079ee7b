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

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
BIN := bin/damone

.PHONY: build
build: ## Build bin/damone (static, trimmed paths, version stamped)
	CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/damone

.PHONY: run
run: ## Run the service on its defaults (gRPC :9090, REST :8080, metrics :9102)
	go run ./cmd/damone serve

##@ Tests and checks

.PHONY: deps
deps: ## Install what tests and generation need beyond Go, if missing (Debian packages, npm ci)
	scripts/test-deps

.PHONY: test
test: deps ## Run every test: gofmt, vet, unit, property, end-to-end (a throwaway PostgreSQL), then make interop
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'))"; \
	if [[ -n "$$unformatted" ]]; then echo "gofmt would change:" >&2; echo "$$unformatted" >&2; exit 1; fi
	go vet ./...
	scripts/test-postgres run bash -c 'go test ./... && go test -race ./internal/games/ ./internal/server/ ./internal/metrics/ ./internal/store/...'
	scripts/interop

.PHONY: test-long
test-long: ## Also run the deep perft counts (depth 7)
	go test ./internal/engine/ -long

.PHONY: bench
bench: ## Run the engine benchmarks (perft, move generation) as docs/BENCHMARKS.md reports them
	go test ./internal/engine/ -run '^$$' -bench . -benchtime 2s -count 5

.PHONY: fuzz
fuzz: ## Fuzz the position and move parsers for 30 s each
	go test ./internal/engine/ -run '^$$' -fuzz FuzzParsePosition -fuzztime 30s
	go test ./internal/engine/ -run '^$$' -fuzz FuzzParseMove -fuzztime 30s

##@ API contract (proto/damone/v1 -> gen/)

.PHONY: generate
generate: deps ## Regenerate gen/ (Go messages, gRPC stubs, gateway, OpenAPI; TypeScript and Python clients) from proto/
	$(BUF) generate
	$(BUF) generate --template buf.gen.clients.yaml

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

##@ Clients in other languages (gen/ts, gen/python, clients/)

.PHONY: interop
interop: deps ## Build and start a real server, then run the TypeScript and Python examples and interop tests against it (part of make test)
	scripts/interop
