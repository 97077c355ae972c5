# QueueBox build, test and local stack. `make help` lists the targets.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

VERSION ?= 0.1.0-dev+$(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X github.com/alternayte/queuebox/pkg/buildinfo.Version=$(VERSION)
BIN := $(CURDIR)/bin
TOOLS := $(CURDIR)/bin/tools
STATICCHECK_VERSION := v0.8.2
SERVICES := ingest relay deliver capture
# The one-process binary: every role, the health probe and `queuebox dev`.
SINGLE := queuebox
# Every Go module of the workspace, as go.work lists them (./pkg -> pkg).
MODULES := $(shell go work edit -json | sed -n 's|.*"DiskPath": "\./\(.*\)".*|\1|p')

export GOFLAGS := -buildvcs=false

# The JSONata conformance suite lives beside the checkout (../shared), never
# inside it; its test reads it through QUEUEBOX_JSONATA_SHARED and skips,
# saying so, when it is absent. Every other test reads the checkout only.
# Test-only variables reach the test commands alone (TEST_ENV), never the
# environment of every recipe: a QUEUEBOX_ variable that is no
# configuration key makes each start of `make run` warn about it.
JSONATA_SUITE ?= $(wildcard $(CURDIR)/../shared/jsonata)
QUEUEBOX_JSONATA_SHARED ?= $(JSONATA_SUITE)
TEST_ENV := $(if $(QUEUEBOX_JSONATA_SHARED),QUEUEBOX_JSONATA_SHARED=$(QUEUEBOX_JSONATA_SHARED))

.PHONY: help docs build build-queuebox test test-unit test-integration test-examples test-clients lint tidy-check fmt run run-roles bench soak chaos services compose-config clean

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

docs: ## Regenerate the configuration reference, queuebox.schema.json and the chart's schema and rules from the code.
	@cd pkg && go generate ./config
	@cp deploy/monitoring/alerts.yml deploy/helm/queuebox/files/alerts.yml

build: build-queuebox ## Build queuebox (every role in one process) and the four role binaries into bin/.
	@for s in $(SERVICES); do \
		echo "go build queuebox-$$s"; \
		go build -ldflags '$(LDFLAGS)' -o $(BIN)/queuebox-$$s ./services/$$s; \
	done

build-queuebox: ## Build only bin/queuebox, all that make run (queuebox dev) needs.
	@mkdir -p $(BIN)
	@echo "go build $(SINGLE)"
	@go build -ldflags '$(LDFLAGS)' -o $(BIN)/$(SINGLE) ./services/$(SINGLE)

services: ## Start PostgreSQL, RabbitMQ and NATS when they are down.
	@deploy/local/ensure-services.sh

test: services build ## Run every test (unit and integration) against the local services.
	@$(MAKE) --no-print-directory test-unit test-integration test-clients test-examples compose-config

test-unit: ## Run the tests of every module except integration/.
	@for m in $(filter-out integration,$(MODULES)); do \
		echo "== go test $$m"; \
		(cd $$m && $(TEST_ENV) go test -count=1 ./...); \
	done

test-integration: build ## Run the end-to-end tests against the built binaries.
	@echo "== go test integration"
	@cd integration && QUEUEBOX_BIN_DIR=$(BIN) go test -count=1 -timeout 20m ./...

test-clients: ## Build and test the TypeScript pull client (npm ci from its lockfile, tsc, node --test).
	@echo "== clients/typescript"
	@bash clients/typescript/test.sh

test-examples: build ## Run the smoke test of every example against the local services, without Docker.
	@for t in examples/*/smoke-test.sh; do \
		echo "== $$t"; \
		$$t; \
	done

bench: services build ## Measure the binaries against SQL baselines and print the table (about 10 min here; BENCH_FLAGS adds flags).
	@cd bench && go run ./qbbench -bin $(BIN) $(BENCH_FLAGS)

# SOAK_MINUTES shortens the soak (the compared windows are a sixth of it);
# SOAK_FLAGS adds qbbench flags: -soak-rate (both loads) or -soak-outbox-rate
# and -soak-inbox-rate; -soak-partition-interval 10m partitions the tables
# (-soak-premake); -soak-retention-age 20m turns on retention AGE
# (-soak-cleanup-interval, default 1m); either starts queuebox-relay too;
# -soak-idle-tx 20m holds an idle transaction open in the middle of the run;
# -soak-pg-set name=value (repeated) changes a setting of the soak's private
# PostgreSQL server, which otherwise keeps PostgreSQL's defaults.
# The two-hour record of issue 39 (docs/performance.md):
#   make soak SOAK_MINUTES=120 SOAK_FLAGS='-soak-partition-interval 10m -soak-retention-age 20m -soak-outbox-rate 500 -soak-inbox-rate 500 -soak-idle-tx 20m'
SOAK_MINUTES ?= 30
soak: services build ## Run deliver and ingest (and relay with partitions or retention) under a steady load for SOAK_MINUTES (30) minutes; fail when memory or claim p99 grows by more than 20 %, the tables do too with retention on, or a row is lost.
	@cd bench && go run ./qbbench -bin $(BIN) -soak $(SOAK_MINUTES)m $(SOAK_FLAGS)

# SEED replays a fault schedule; CHAOS_MESSAGES and CHAOS_FAULTS shrink a
# run (the page then says it is not a full run).
SEED ?=
CHAOS_RESULTS := $(CURDIR)/bin/chaos-results.jsonl
chaos: services build ## Run every fault scenario at full size (100,000 messages, 50 faults each) and rewrite docs/reliability.md.
	@rm -f $(CHAOS_RESULTS)
	@cd integration && status=0; \
	QUEUEBOX_BIN_DIR=$(BIN) CHAOS_SIZE=full CHAOS_SEED=$(SEED) CHAOS_MESSAGES=$(CHAOS_MESSAGES) CHAOS_FAULTS=$(CHAOS_FAULTS) \
		CHAOS_RESULTS=$(CHAOS_RESULTS) go test -count=1 -v -timeout 24h ./chaos/ > $(BIN)/chaos.log 2>&1 || status=$$?; \
	grep -E '^(--- |ok|FAIL)|chaos result|seed [0-9]+' $(BIN)/chaos.log || true; \
	go run ./chaos/cmd/chaosreport -results $(CHAOS_RESULTS) -out ../docs/reliability.md \
		-commit "$$(git rev-parse --short HEAD)" \
		-command "make chaos$(if $(SEED), SEED=$(SEED))$(if $(CHAOS_MESSAGES), CHAOS_MESSAGES=$(CHAOS_MESSAGES))$(if $(CHAOS_FAULTS), CHAOS_FAULTS=$(CHAOS_FAULTS))"; \
	echo "wrote docs/reliability.md; the whole log is bin/chaos.log"; exit $$status

lint: $(TOOLS)/staticcheck tidy-check ## gofmt, go vet, staticcheck and the go mod tidy check on every module.
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@for m in $(MODULES); do (cd $$m && go vet ./... && $(TOOLS)/staticcheck ./...); done
	@echo "lint ok"

tidy-check: ## Fail when go mod tidy would change a module's go.mod or go.sum, and print the change.
	@for m in $(MODULES); do \
		(cd $$m && go mod tidy -diff) || { echo "go mod tidy would change $$m: run (cd $$m && go mod tidy)"; exit 1; }; \
	done

fmt: ## Format every Go file.
	@gofmt -w $(MODULES)

$(TOOLS)/staticcheck:
	@mkdir -p $(TOOLS)
	GOBIN=$(TOOLS) GOWORK=off go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

run: ## Start queuebox dev: a private PostgreSQL, every role and a demo receiver; Ctrl+C removes it all.
	@deploy/local/ensure-services.sh --install-only
	@$(MAKE) --no-print-directory build-queuebox
	@echo "make run: queuebox dev (one process, its own PostgreSQL in a temporary folder)."
	@echo "For the per-role stack instead (four binaries on 8080-8083 against the local PostgreSQL): make run-roles"
	@$(BIN)/$(SINGLE) dev

run-roles: services build ## Start the four role binaries and the demo receiver against the local PostgreSQL; Ctrl+C stops them.
	@deploy/local/run-stack.sh

compose-config: ## Check every Compose file with docker compose config, and that published ports neither overlap nor block --scale.
	@deploy/local/compose-config.sh

clean: ## Remove build output.
	rm -rf $(BIN)
