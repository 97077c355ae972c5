package config

import "strconv"

// Kind groups of keyRules: the kinds of an entry that read a key.
var (
	brokerSources = []string{KindRabbitMQ, KindKafka, KindNATS}
	hmacAuth      = []string{AuthHMAC}
	presetAuths   = []string{AuthStripe, AuthGitHub, AuthShopify, AuthSlack, AuthStandardWebhooks}
	presetSecrets = "at most " + strconv.Itoa(maxPreviousSecrets) + " secrets, each at least 16 bytes and not blank; whsec_ keys for standard-webhooks"
	strongAdmin   = "at least 16 bytes and not blank on admin.auth and admin.viewer"
	strongSecrets = "at least 16 bytes and not blank on admin.auth, admin.viewer and the presets (standard-webhooks: a whsec_ key)"
)

const (
	definitePath = "a definite JSONPath such as $.data.id (no .., *, filter, slice or union)"
	sqlName      = "a SQL identifier (a letter or _, then letters, digits and _); a name other than the default needs database.migrate false"
	captureIdent = "a lower case letter, then lower case letters, digits and _, at most 63 characters"
	endpoint     = "an absolute http or https URL with a host and no user information; http.blockPrivateAddresses applies"
	brokerHosts  = "http.blockPrivateAddresses applies to its hosts"
	addressTmpl  = "a literal or a template of address placeholders"
	tokenOrUser  = "username and password come together; token excludes username"
	kafkaSASL    = "a SASL_ protocol needs saslMechanism, saslUsername and saslPassword"
	secretBlock  = "required when the block is present"
)

// keyRules holds, per key pattern, what the validator checks and the
// defaults the loader derives after decoding. Every key of Keys has an
// entry (keyRule{} when nothing is checked), so a new field cannot reach
// the reference without a decision here; a pattern ending in .* covers
// the keys of one block.
var keyRules = map[string]keyRule{
	"server.httpPort":       aPort,
	"server.allowedHosts":   note("host names or IP addresses, without port; a request whose Host names another gets 421; empty allows every host (queuebox dev: localhost, 127.0.0.1, ::1)"),
	"server.managementPort": aPort.says("must differ from server.httpPort; unset serves /health, /metrics and /admin on the data port"),

	"database.type":                   oneOf(DatabasePostgres, DatabaseSQLServer),
	"database.url":                    note("required; jdbc:postgresql://, postgres:// or postgresql:// for postgresql, jdbc:sqlserver:// or sqlserver:// for sqlserver"),
	"database.username":               note("required"),
	"database.password":               note("empty when no source sets it, for a server that asks for none (trust or peer authentication); a server that asks refuses the login and the start stops naming this key"),
	"database.poolSize":               above0,
	"database.connectionTimeoutMs":    atLeast0,
	"database.startupTimeoutMs":       atLeast0,
	"database.migrate":                {},
	"database.outboxTableName":        note(sqlName),
	"database.inboxTableName":         note(sqlName),
	"database.columnMapping.outbox.*": note(sqlName),
	"database.columnMapping.inbox.*":  note(sqlName),
	"database.partitioning.enabled":   note("postgresql only, with the default table and column names; the database must agree (queuebox migrate creates it so)"),
	"database.partitioning.interval":  note("from 5m to 7d"),
	"database.partitioning.premake":   keyRule{min: bound(1), max: bound(MaxPartitionPremake)},

	"outbox.pollIntervalMs":         above0,
	"outbox.batchSize":              above0,
	"outbox.concurrency":            above0,
	"outbox.retryBaseDelayMs":       atLeast0,
	"outbox.maxAttempts":            above0,
	"outbox.claimTimeoutMs":         above0,
	"outbox.pendingGaugeIntervalMs": above0,
	"outbox.shutdownTimeoutMs":      above0,
	"outbox.ledger.enabled":         note("records every attempt in outbox_attempts (migration V17); without that table deliver runs with the ledger off and logs why"),

	"outbox.capture.mode":                              oneOf(CapturePolling, CapturePostgresLogical, CaptureSQLServerCDC).says("postgres-logical needs database.type postgresql, sqlserver-cdc needs sqlserver; a database.url with several hosts needs connection.hostname"),
	"outbox.capture.enabled":                           note("true needs a mode other than polling"),
	"outbox.capture.identity":                          note(captureIdent),
	"outbox.capture.stateDirectory":                    note("required when enabled is true"),
	"outbox.capture.schema":                            {},
	"outbox.capture.publication":                       note(captureIdent),
	"outbox.capture.slot":                              note(captureIdent),
	"outbox.capture.reconciliationIntervalMs":          above0,
	"outbox.capture.connection.hostname":               {},
	"outbox.capture.connection.port":                   aPort,
	"outbox.capture.connection.database":               {},
	"outbox.capture.connection.username":               {},
	"outbox.capture.connection.password":               {},
	"outbox.capture.connection.encrypt":                {},
	"outbox.capture.connection.trustServerCertificate": {},

	"inbox.basePath":                     note("starts with /"),
	"inbox.maxBodyBytes":                 above0,
	"inbox.relay.enabled":                {},
	"inbox.relay.pollIntervalMs":         above0,
	"inbox.relay.batchSize":              above0,
	"inbox.relay.claimTimeoutMs":         above0,
	"inbox.relay.pendingGaugeIntervalMs": above0,
	"inbox.relay.maxAttempts":            above0.dflt("outbox.maxAttempts"),

	"http.maxErrorBodyBytes":     above0,
	"http.blockPrivateAddresses": {},

	"admin.enabled":               note("true needs auth, or insecure true"),
	"admin.insecure":              {},
	"admin.maxTransformTimeoutMs": above0,
	"admin.maxPayloadBytes":       above0,

	"routes[<n>].topicPattern":                  note("required; * matches one segment, ** any text, *** is refused"),
	"routes[<n>].destination":                   note("names a configured destination; exactly one of destination and destinations"),
	"routes[<n>].destinations":                  note("a fan-out: each row goes to every destination of the list; not empty, no name twice, each a configured destination"),
	"routes[<n>].routingKeyTemplate":            note("unset: the destination's routingKeyTemplate"),
	"routes[<n>].routingKeyMissingFieldDefault": {},

	"destinations.<name>.type":                                        note("breaks the tie when the keys of several kinds are set; a disagreeing type is a warning"),
	"destinations.<name>.headers":                                     note("with signing, must not set the signature headers"),
	"destinations.<name>.timeoutMs":                                   above0.says("kafka: at least 2000"),
	"destinations.<name>.flowControl.maxInFlight":                     above0.dflt("half of outbox.concurrency, at least 1"),
	"destinations.<name>.flowControl.ratePerSecond":                   atLeast0.says("0 means no limit"),
	"destinations.<name>.flowControl.circuitBreaker.enabled":          {},
	"destinations.<name>.flowControl.circuitBreaker.failureThreshold": above0,
	"destinations.<name>.flowControl.circuitBreaker.openMs":           keyRule{min: bound(1), max: bound(MaxOpenMs)},
	"destinations.<name>.flowControl.honorRetryAfter":                 {},
	"destinations.<name>.flowControl.maxRetryAfterMs":                 above0,
	"destinations.<name>.signing.scheme":                              oneOf(SigningStandardWebhooks).dflt(SigningStandardWebhooks),
	"destinations.<name>.signing.secret":                              note(secretBlock + "; whsec_ and the base64 of the key"),
	"destinations.<name>.signing.previousSecrets":                     note(presetSecrets),
	"destinations.<name>.baseUrl":                                     note(endpoint).of(KindHTTP),
	"destinations.<name>.path":                                        note("no . or .. segment").of(KindHTTP),
	"destinations.<name>.http1FastPath":                               note("plain http:// without a proxy; false: net/http's client").of(KindHTTP),
	"destinations.<name>.auth.type":                                   note("breaks the tie between complete kinds").of(KindHTTP),
	"destinations.<name>.auth.clientId":                               only(KindHTTP),
	"destinations.<name>.auth.clientSecret":                           only(KindHTTP),
	"destinations.<name>.auth.tokenUrl":                               note(endpoint).of(KindHTTP),
	"destinations.<name>.auth.scope":                                  note("oauth2").of(KindHTTP),
	"destinations.<name>.auth.extraParams":                            note("oauth2").of(KindHTTP),
	"destinations.<name>.auth.username":                               only(KindHTTP),
	"destinations.<name>.auth.password":                               only(KindHTTP),
	"destinations.<name>.auth.headerName":                             note("header").dflt(defaultDestAuthHeader).of(KindHTTP),
	"destinations.<name>.auth.headerValue":                            only(KindHTTP),
	"destinations.<name>.url":                                         note(brokerHosts).of(KindRabbitMQ),
	"destinations.<name>.exchange":                                    note(addressTmpl).of(KindRabbitMQ),
	"destinations.<name>.exchangeFrom":                                oneOf(addressColumns...).of(KindRabbitMQ),
	"destinations.<name>.exchangeType":                                oneOf("topic", "direct", "fanout").of(KindRabbitMQ),
	"destinations.<name>.routingKeyTemplate":                          only(KindRabbitMQ),
	"destinations.<name>.deliveryMode":                                oneOf("persistent", "transient").of(KindRabbitMQ),
	"destinations.<name>.bootstrapServers":                            note(brokerHosts).of(KindKafka),
	"destinations.<name>.topic":                                       note(addressTmpl).of(KindKafka),
	"destinations.<name>.topicFrom":                                   oneOf(addressColumns...).of(KindKafka),
	"destinations.<name>.keyTemplate":                                 only(KindKafka),
	"destinations.<name>.securityProtocol":                            oneOf("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL").says(kafkaSASL).of(KindKafka),
	"destinations.<name>.saslMechanism":                               only(KindKafka),
	"destinations.<name>.saslUsername":                                only(KindKafka),
	"destinations.<name>.saslPassword":                                only(KindKafka),
	"destinations.<name>.servers":                                     note(brokerHosts).of(KindNATS),
	"destinations.<name>.subject":                                     note(addressTmpl).of(KindNATS),
	"destinations.<name>.subjectFrom":                                 oneOf(addressColumns...).of(KindNATS),
	"destinations.<name>.jetStream":                                   only(KindNATS),
	"destinations.<name>.username":                                    note(tokenOrUser).of(KindNATS),
	"destinations.<name>.password":                                    note(tokenOrUser).of(KindNATS),
	"destinations.<name>.token":                                       note(tokenOrUser).of(KindNATS),

	"sources.<name>.type":                            note("breaks the tie when the keys of several kinds are set; a disagreeing type is a warning"),
	"sources.<name>.consumption":                     oneOf(ConsumptionPush, ConsumptionPull),
	"sources.<name>.topic":                           note("not blank on a push source; {{ eventType }} needs an event type").dflt(defaultHTTPSourceTopic + " (http), " + defaultBrokerSourceTopic + " (brokers)"),
	"sources.<name>.idempotencyKeyPath":              note(definitePath).dflt("the auth preset's, else " + defaultIdempotencyPath + " (brokers)"),
	"sources.<name>.aggregateIdPath":                 note(definitePath),
	"sources.<name>.eventTypePath":                   note(definitePath).dflt("the auth preset's"),
	"sources.<name>.filter.require[<n>].header":      note("required"),
	"sources.<name>.filter.require[<n>].equals":      note("exactly one of equals, in, matches and exists"),
	"sources.<name>.filter.require[<n>].in":          note("not empty"),
	"sources.<name>.filter.require[<n>].matches":     note("a regular expression"),
	"sources.<name>.filter.require[<n>].exists":      note("true only"),
	"sources.<name>.filter.exclude[<n>].header":      note("required"),
	"sources.<name>.filter.exclude[<n>].equals":      note("exactly one of equals, in, matches and exists"),
	"sources.<name>.filter.exclude[<n>].in":          note("not empty"),
	"sources.<name>.filter.exclude[<n>].matches":     note("a regular expression"),
	"sources.<name>.filter.exclude[<n>].exists":      note("true only"),
	"sources.<name>.rateLimit.requestsPerMinute":     above0.of(KindHTTP),
	"sources.<name>.trustTraceContext":               note("an http source needs an auth block to set it true"),
	"sources.<name>.path":                            note("unique across the http sources").of(KindHTTP),
	"sources.<name>.queueName":                       only(KindRabbitMQ),
	"sources.<name>.connectionUrl":                   only(KindRabbitMQ),
	"sources.<name>.prefetchCount":                   above0.of(KindRabbitMQ),
	"sources.<name>.declareQueue":                    only(KindRabbitMQ),
	"sources.<name>.eventTypeFromHeader":             only(brokerSources...),
	"sources.<name>.attributeHeaders.idempotencyKey": only(brokerSources...),
	"sources.<name>.attributeHeaders.aggregateId":    only(brokerSources...),
	"sources.<name>.attributeHeaders.eventType":      only(brokerSources...),
	"sources.<name>.bootstrapServers":                only(KindKafka),
	"sources.<name>.topics":                          note("at least one, none blank").of(KindKafka),
	"sources.<name>.groupId":                         only(KindKafka),
	"sources.<name>.autoOffsetReset":                 oneOf("earliest", "latest").of(KindKafka),
	"sources.<name>.maxPollRecords":                  above0.of(KindKafka),
	"sources.<name>.securityProtocol":                oneOf("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL").says(kafkaSASL).of(KindKafka),
	"sources.<name>.saslMechanism":                   only(KindKafka),
	"sources.<name>.saslUsername":                    only(KindKafka),
	"sources.<name>.saslPassword":                    only(KindKafka),
	"sources.<name>.servers":                         only(KindNATS),
	"sources.<name>.stream":                          only(KindNATS),
	"sources.<name>.durable":                         only(KindNATS),
	"sources.<name>.filterSubject":                   only(KindNATS),
	"sources.<name>.ackWaitMs":                       above0.of(KindNATS),
	"sources.<name>.batchSize":                       above0.of(KindNATS),
	"sources.<name>.username":                        note(tokenOrUser).of(KindNATS),
	"sources.<name>.password":                        note(tokenOrUser).of(KindNATS),
	"sources.<name>.token":                           note(tokenOrUser).of(KindNATS),

	"retention.enabled":                {},
	"retention.outbox.policy":          oneOf(PolicyAge, PolicyCount, PolicyDisabled),
	"retention.outbox.maxAge":          note("required by policy AGE while retention.enabled is true; above 0"),
	"retention.outbox.maxCount":        above0.says("required by policy COUNT while retention.enabled is true"),
	"retention.outbox.cleanupInterval": note("above 0 while retention.enabled is true"),
	"retention.outbox.batchSize":       above0,
	"retention.inbox.policy":           oneOf(PolicyAge, PolicyDisabled),
	"retention.inbox.maxAge":           note("required by policy AGE while retention.enabled is true; above 0"),
	"retention.inbox.maxCount":         above0,
	"retention.inbox.cleanupInterval":  note("above 0 while retention.enabled is true"),
	"retention.inbox.batchSize":        above0,
	"retention.ledger.policy":          oneOf(PolicyAge, PolicyDisabled).says("runs while outbox.ledger.enabled is true, whatever retention.enabled says"),
	"retention.ledger.maxAge":          note("above 0 with policy AGE; measured from the attempt's start"),
	"retention.ledger.cleanupInterval": note("above 0 with policy AGE"),
	"retention.ledger.batchSize":       above0,
}

// authRules are the rules of a source's and of the admin auth block,
// registered under both prefixes by init. Their kinds are auth kinds.
var authRules = map[string]keyRule{
	"type":                   note("bearer, api-key or hmac are selected by their keys; a preset (stripe, github, shopify, slack, standard-webhooks) by type alone, on http sources only"),
	"token":                  note(strongAdmin).of(AuthBearer),
	"key":                    note(strongAdmin).of(AuthAPIKey),
	"headerName":             note("").dflt(defaultAPIKeyHeader+" (api-key), "+defaultHMACHeader+" (hmac)").of(AuthAPIKey, AuthHMAC),
	"secret":                 note(strongSecrets).of(append([]string{AuthHMAC}, presetAuths...)...),
	"algorithm":              oneOf("HmacSHA256", "HmacSHA512").of(hmacAuth...),
	"signaturePrefix":        note("an explicit empty string means no prefix").dflt(defaultSignaturePrefix).of(hmacAuth...),
	"timestampHeader":        only(hmacAuth...),
	"timestampTolerance":     above0.of(hmacAuth...),
	"signaturePayloadFormat": note("body or timestamp-dot-body (either letter case); timestamp-dot-body needs timestampHeader").dflt("timestamp-dot-body with timestampHeader, else body").of(hmacAuth...),
	"previousSecrets":        note(presetSecrets).of(presetAuths...),
	"toleranceSeconds":       above0.of(presetAuths...),
	"deduplicateOnBody":      note("true keys the row by the SHA-256 digest of the signed body (sha256:<hex>) instead of the unsigned delivery id header, so a re-labelled copy is a duplicate").dflt("true").of(AuthGitHub, AuthShopify),
}

// transformRules are the rules of a transform block, registered under
// destinations, routes and sources by init.
var transformRules = map[string]keyRule{
	"expression": note("required when the block is present; must compile (JSONata)"),
	"timeoutMs":  above0,
	"maxDepth":   above0,
	"onError":    oneOf(OnErrorFail, OnErrorSkip, OnErrorDead),
}

func init() {
	for key, r := range authRules {
		keyRules["sources.<name>.auth."+key] = r
		keyRules["admin.auth."+key] = r
		keyRules["admin.viewer."+key] = r
	}
	for key, r := range transformRules {
		for _, block := range []string{"destinations.<name>", "routes[<n>]", "sources.<name>"} {
			keyRules[block+".transform."+key] = r
		}
	}
}
