// Package config loads and validates queuebox.yml and the QUEUEBOX_
// environment variables into one Config that every binary shares.
//
// The yaml tags name each key exactly as the configuration reference spells
// it; the loader matches keys in any letter case. Fields tagged "-" are
// derived by the loader (the selected kind, the map key of an entry).
package config

import (
	"time"

	"github.com/alternayte/queuebox/pkg/secret"
)

// Config is the whole configuration of a QueueBox process.
type Config struct {
	Server       Server                  `yaml:"server"`
	Database     Database                `yaml:"database"`
	Outbox       Outbox                  `yaml:"outbox"`
	Inbox        Inbox                   `yaml:"inbox"`
	HTTP         HTTP                    `yaml:"http"`
	Admin        Admin                   `yaml:"admin"`
	Destinations map[string]*Destination `yaml:"destinations"`
	Routes       []Route                 `yaml:"routes"`
	Sources      map[string]*Source      `yaml:"sources"`
	Retention    Retention               `yaml:"retention"`

	// warnings holds what Load noticed but does not refuse, such as an
	// unknown key. See Warnings.
	warnings []string
}

// Server holds the listening ports.
type Server struct {
	HTTPPort       int  `yaml:"httpPort"`
	ManagementPort *int `yaml:"managementPort"`
	// AllowedHosts are the host names (or IP addresses) that a request's
	// Host header may name, port aside; empty allows every host.
	AllowedHosts []string `yaml:"allowedHosts"`
}

// Database names the database, the pool and the table layout.
type Database struct {
	Type                string        `yaml:"type"`
	URL                 string        `yaml:"url"`
	Username            string        `yaml:"username"`
	Password            secret.Secret `yaml:"password"`
	PoolSize            int           `yaml:"poolSize"`
	ConnectionTimeoutMs int           `yaml:"connectionTimeoutMs"`
	StartupTimeoutMs    int           `yaml:"startupTimeoutMs"`
	Migrate             bool          `yaml:"migrate"`
	OutboxTableName     string        `yaml:"outboxTableName"`
	InboxTableName      string        `yaml:"inboxTableName"`
	ColumnMapping       ColumnMapping `yaml:"columnMapping"`
	Partitioning        Partitioning  `yaml:"partitioning"`
}

// Partitioning makes the outbox and inbox tables range-partitioned by
// created_at (PostgreSQL only). It is fixed when the database is created:
// QueueBox refuses to start when the database and Enabled disagree.
type Partitioning struct {
	// Enabled creates a new database partitioned and keeps its partitions.
	Enabled bool `yaml:"enabled"`
	// Interval is the time range of one partition.
	Interval Duration `yaml:"interval"`
	// Premake is the number of partitions kept ready after the one of now.
	Premake int `yaml:"premake"`
}

// Bounds of database.partitioning.interval and premake. An interval
// shorter than five minutes makes a partition per few inserts; one longer
// than a week keeps a week of final rows before retention can drop any.
const (
	MinPartitionInterval = 5 * time.Minute
	MaxPartitionInterval = 7 * 24 * time.Hour
	MaxPartitionPremake  = 100
)

// Database types.
const (
	DatabasePostgres  = "postgresql"
	DatabaseSQLServer = "sqlserver"
)

// ColumnMapping renames the columns of both tables.
type ColumnMapping struct {
	Outbox OutboxColumns `yaml:"outbox"`
	Inbox  InboxColumns  `yaml:"inbox"`
}

// OutboxColumns holds the column name of each outbox field.
type OutboxColumns struct {
	ID             string `yaml:"id"`
	Topic          string `yaml:"topic"`
	Key            string `yaml:"key"`
	AggregateType  string `yaml:"aggregateType"`
	Payload        string `yaml:"payload"`
	Headers        string `yaml:"headers"`
	State          string `yaml:"state"`
	Attempt        string `yaml:"attempt"`
	MaxAttempts    string `yaml:"maxAttempts"`
	ScheduledAt    string `yaml:"scheduledAt"`
	CreatedAt      string `yaml:"createdAt"`
	UpdatedAt      string `yaml:"updatedAt"`
	ClaimedAt      string `yaml:"claimedAt"`
	ClaimToken     string `yaml:"claimToken"`
	LeaseExpiresAt string `yaml:"leaseExpiresAt"`
	LastError      string `yaml:"lastError"`
	Sequence       string `yaml:"sequence"`
	// Destination is the lane's destination (migration V16): the
	// destination a row was routed to, '' until it is routed.
	Destination string `yaml:"destination"`
	// OriginID is set on the deliveries QueueBox adds for a route with
	// several destinations: the id of the row the application wrote.
	OriginID string `yaml:"originId"`
}

// InboxColumns holds the column name of each inbox field.
type InboxColumns struct {
	ID             string `yaml:"id"`
	Source         string `yaml:"source"`
	IdempotencyKey string `yaml:"idempotencyKey"`
	AggregateID    string `yaml:"aggregateId"`
	EventType      string `yaml:"eventType"`
	Payload        string `yaml:"payload"`
	State          string `yaml:"state"`
	CreatedAt      string `yaml:"createdAt"`
	ProcessedAt    string `yaml:"processedAt"`
	ClaimedAt      string `yaml:"claimedAt"`
	ClaimToken     string `yaml:"claimToken"`
	LeaseExpiresAt string `yaml:"leaseExpiresAt"`
	CorrelationID  string `yaml:"correlationId"`
	Consumption    string `yaml:"consumption"`
	ScheduledAt    string `yaml:"scheduledAt"`
	Attempt        string `yaml:"attempt"`
	LastError      string `yaml:"lastError"`
	Headers        string `yaml:"headers"`
}

// Outbox configures the outbox poller.
type Outbox struct {
	PollIntervalMs         int     `yaml:"pollIntervalMs"`
	BatchSize              int     `yaml:"batchSize"`
	Concurrency            int     `yaml:"concurrency"`
	RetryBaseDelayMs       int     `yaml:"retryBaseDelayMs"`
	MaxAttempts            int     `yaml:"maxAttempts"`
	ClaimTimeoutMs         int     `yaml:"claimTimeoutMs"`
	PendingGaugeIntervalMs int     `yaml:"pendingGaugeIntervalMs"`
	ShutdownTimeoutMs      int     `yaml:"shutdownTimeoutMs"`
	Capture                Capture `yaml:"capture"`
	Ledger                 Ledger  `yaml:"ledger"`
}

// Ledger configures the delivery ledger: one row per attempt of an outbox
// row in the table outbox_attempts (migration V17), written with the
// attempt's outcome. Its cleanup is retention.ledger.
type Ledger struct {
	Enabled bool `yaml:"enabled"`
}

// Capture configures change data capture, which only wakes delivery.
type Capture struct {
	Mode                     string            `yaml:"mode"`
	Enabled                  bool              `yaml:"enabled"`
	Identity                 string            `yaml:"identity"`
	StateDirectory           string            `yaml:"stateDirectory"`
	Schema                   string            `yaml:"schema"`
	Publication              string            `yaml:"publication"`
	Slot                     string            `yaml:"slot"`
	ReconciliationIntervalMs int               `yaml:"reconciliationIntervalMs"`
	Connection               CaptureConnection `yaml:"connection"`
}

// Wakes reports whether deliver replicas wait for capture's wake-ups: a
// mode other than polling. The configuration is shared by every role, so
// a replica with enabled false learns from the mode that some replica
// captures; enabled only says which one owns the connector.
func (c Capture) Wakes() bool { return c.Mode != "" && c.Mode != CapturePolling }

// Capture modes.
const (
	CapturePolling         = "polling"
	CapturePostgresLogical = "postgres-logical"
	CaptureSQLServerCDC    = "sqlserver-cdc"
)

// CaptureConnection overrides parts of database.url for capture only.
// A nil pointer or an empty string means "take it from the database block".
type CaptureConnection struct {
	Hostname               string         `yaml:"hostname"`
	Port                   *int           `yaml:"port"`
	Database               string         `yaml:"database"`
	Username               string         `yaml:"username"`
	Password               *secret.Secret `yaml:"password"`
	Encrypt                bool           `yaml:"encrypt"`
	TrustServerCertificate bool           `yaml:"trustServerCertificate"`
}

// Inbox configures the HTTP inbox routes and the relay.
type Inbox struct {
	BasePath string `yaml:"basePath"`
	// MaxBodyBytes bounds the body of an HTTP inbox request (413 past it)
	// and of every broker source's message (RabbitMQ, NATS, Kafka), which
	// is stored dead past it with a cut of its body.
	MaxBodyBytes int64 `yaml:"maxBodyBytes"`
	Relay        Relay `yaml:"relay"`
}

// Relay configures the inbox relay.
type Relay struct {
	Enabled                bool `yaml:"enabled"`
	PollIntervalMs         int  `yaml:"pollIntervalMs"`
	BatchSize              int  `yaml:"batchSize"`
	ClaimTimeoutMs         int  `yaml:"claimTimeoutMs"`
	PendingGaugeIntervalMs int  `yaml:"pendingGaugeIntervalMs"`
	// MaxAttempts is nil when unset; EffectiveMaxAttempts falls back to
	// outbox.maxAttempts.
	MaxAttempts *int `yaml:"maxAttempts"`
}

// HTTP holds the settings of every HTTP destination. BlockPrivateAddresses
// reaches beyond them: it refuses a RabbitMQ, NATS or Kafka destination on
// an inside address too (see docs/security.md).
type HTTP struct {
	MaxErrorBodyBytes     int  `yaml:"maxErrorBodyBytes"`
	BlockPrivateAddresses bool `yaml:"blockPrivateAddresses"`
}

// Admin configures the admin routes.
type Admin struct {
	Enabled bool        `yaml:"enabled"`
	Auth    *SourceAuth `yaml:"auth"`
	// Viewer is the read-only credential of the admin routes: it passes
	// every GET and gets 403 on every write. Same kinds as Auth.
	Viewer                *SourceAuth `yaml:"viewer"`
	Insecure              bool        `yaml:"insecure"`
	MaxTransformTimeoutMs int         `yaml:"maxTransformTimeoutMs"`
	MaxPayloadBytes       int64       `yaml:"maxPayloadBytes"`
}

// Destination kinds, selected from the required keys an entry sets.
const (
	KindHTTP     = "http"
	KindRabbitMQ = "rabbitmq"
	KindKafka    = "kafka"
	KindNATS     = "nats"
)

// Destination is one configured egress. Kind holds the kind that the
// required keys selected; the fields of the other kinds stay unused.
type Destination struct {
	Name string `yaml:"-"`
	Kind string `yaml:"-"`

	Type      string            `yaml:"type"`
	Headers   map[string]string `yaml:"headers"`
	Transform *Transform        `yaml:"transform"`
	TimeoutMs int               `yaml:"timeoutMs"`
	// FlowControl paces the publishes to this destination; every kind
	// has it.
	FlowControl FlowControl `yaml:"flowControl"`

	// Signing signs every delivery (Standard Webhooks); nil signs none.
	// Every kind accepts it.
	Signing *Signing `yaml:"signing"`

	// HTTP.
	BaseURL string           `yaml:"baseUrl"`
	Path    string           `yaml:"path"`
	Auth    *DestinationAuth `yaml:"auth"`
	// HTTP1FastPath publishes to a plain http:// baseUrl without a proxy
	// through QueueBox's own HTTP/1.1 client; false sends it through
	// net/http's Transport like an https:// one.
	HTTP1FastPath bool `yaml:"http1FastPath"`

	// RabbitMQ.
	URL                string `yaml:"url"`
	Exchange           string `yaml:"exchange"`
	ExchangeFrom       string `yaml:"exchangeFrom"`
	ExchangeType       string `yaml:"exchangeType"`
	RoutingKeyTemplate string `yaml:"routingKeyTemplate"`
	DeliveryMode       string `yaml:"deliveryMode"`

	// Kafka.
	BootstrapServers string        `yaml:"bootstrapServers"`
	Topic            string        `yaml:"topic"`
	TopicFrom        string        `yaml:"topicFrom"`
	KeyTemplate      string        `yaml:"keyTemplate"`
	SecurityProtocol string        `yaml:"securityProtocol"`
	SaslMechanism    string        `yaml:"saslMechanism"`
	SaslUsername     string        `yaml:"saslUsername"`
	SaslPassword     secret.Secret `yaml:"saslPassword"`

	// NATS.
	Servers     string        `yaml:"servers"`
	Subject     string        `yaml:"subject"`
	SubjectFrom string        `yaml:"subjectFrom"`
	JetStream   bool          `yaml:"jetStream"`
	Username    string        `yaml:"username"`
	Password    secret.Secret `yaml:"password"`
	Token       secret.Secret `yaml:"token"`
}

// FlowControl is the flowControl block of a destination: the brakes that
// keep one slow or failing destination from holding back the others.
type FlowControl struct {
	// MaxInFlight is nil when unset: the default then follows
	// outbox.concurrency (see EffectiveMaxInFlight).
	MaxInFlight    *int           `yaml:"maxInFlight"`
	RatePerSecond  int            `yaml:"ratePerSecond"`
	CircuitBreaker CircuitBreaker `yaml:"circuitBreaker"`
	// HonorRetryAfter pauses the destination for the time a 429 or 503
	// names, and for a broker's refusal.
	HonorRetryAfter bool `yaml:"honorRetryAfter"`
	MaxRetryAfterMs int  `yaml:"maxRetryAfterMs"`
}

// CircuitBreaker is flowControl.circuitBreaker.
type CircuitBreaker struct {
	Enabled          bool `yaml:"enabled"`
	FailureThreshold int  `yaml:"failureThreshold"`
	OpenMs           int  `yaml:"openMs"`
}

// EffectiveMaxInFlight is flowControl.maxInFlight, or when unset half of
// concurrency (outbox.concurrency), at least 1.
func (f FlowControl) EffectiveMaxInFlight(concurrency int) int {
	if f.MaxInFlight != nil {
		return *f.MaxInFlight
	}
	return max(1, concurrency/2)
}

// Destination auth kinds.
const (
	AuthOAuth2 = "oauth2"
	AuthBasic  = "basic"
	AuthHeader = "header"
)

// DestinationAuth holds the credentials an HTTP destination sends.
type DestinationAuth struct {
	Kind string `yaml:"-"`
	Type string `yaml:"type"`

	ClientID     string            `yaml:"clientId"`
	ClientSecret secret.Secret     `yaml:"clientSecret"`
	TokenURL     string            `yaml:"tokenUrl"`
	Scope        string            `yaml:"scope"`
	ExtraParams  map[string]string `yaml:"extraParams"`

	Username string        `yaml:"username"`
	Password secret.Secret `yaml:"password"`

	HeaderName  string        `yaml:"headerName"`
	HeaderValue secret.Secret `yaml:"headerValue"`
}

// SigningStandardWebhooks is the one signing scheme.
const SigningStandardWebhooks = "standard-webhooks"

// Signing is the signing block of a destination: the scheme, the current
// key and the keys that a rotation still signs with.
type Signing struct {
	Scheme          string          `yaml:"scheme"`
	Secret          secret.Secret   `yaml:"secret"`
	PreviousSecrets []secret.Secret `yaml:"previousSecrets"`
}

// Route sends the rows whose topic matches TopicPattern to Destination,
// or to each of Destinations (a fan-out): exactly one of the two is set.
type Route struct {
	TopicPattern string `yaml:"topicPattern"`
	Destination  string `yaml:"destination"`
	// Destinations sends each row to several destinations, each delivery
	// with its own attempts, retries, dead letter and lane.
	Destinations []string `yaml:"destinations"`
	// RoutingKeyTemplate is nil when the route sets none, so the
	// destination template applies.
	RoutingKeyTemplate            *string    `yaml:"routingKeyTemplate"`
	RoutingKeyMissingFieldDefault string     `yaml:"routingKeyMissingFieldDefault"`
	Transform                     *Transform `yaml:"transform"`
}

// Targets returns the destinations the route names, in list order: the
// one of Destination or the list of Destinations.
func (r Route) Targets() []string {
	if r.Destination != "" {
		return []string{r.Destination}
	}
	return r.Destinations
}

// Transform is a JSONata transform block of a source, route or destination.
type Transform struct {
	Expression string `yaml:"expression"`
	TimeoutMs  int    `yaml:"timeoutMs"`
	MaxDepth   int    `yaml:"maxDepth"`
	OnError    string `yaml:"onError"`
}

// Transform error strategies, in their documented letter case.
const (
	OnErrorFail = "Fail"
	OnErrorSkip = "Skip"
	OnErrorDead = "Dead"
)

// Consumption modes of a source.
const (
	ConsumptionPush = "push"
	ConsumptionPull = "pull"
)

// Source is one configured ingress. Kind holds the kind that the required
// keys selected.
type Source struct {
	Name string `yaml:"-"`
	Kind string `yaml:"-"`

	Type        string `yaml:"type"`
	Consumption string `yaml:"consumption"`
	// Topic is the relay topic template. The loader fills the default of
	// the kind ({{ eventType }} for http, {{ source }} otherwise).
	Topic              string     `yaml:"topic"`
	IdempotencyKeyPath string     `yaml:"idempotencyKeyPath"`
	AggregateIDPath    string     `yaml:"aggregateIdPath"`
	EventTypePath      string     `yaml:"eventTypePath"`
	Transform          *Transform `yaml:"transform"`
	Filter             *Filter    `yaml:"filter"`
	RateLimit          *RateLimit `yaml:"rateLimit"`
	// TrustTraceContext lets the senders' traceparent be the parent of the
	// ingest span and keeps their tracestate and baggage on the rows.
	TrustTraceContext bool `yaml:"trustTraceContext"`

	// topicSet records that a source wrote the topic key, because an absent
	// topic takes the default of the kind while a blank one is an error.
	topicSet bool

	// HTTP.
	Path string      `yaml:"path"`
	Auth *SourceAuth `yaml:"auth"`
	// IdempotencyKeyHeaders and EventTypeHeader are filled by the loader
	// from an auth preset that reads them from headers (github, shopify,
	// standard-webhooks) when the source sets no path for them.
	IdempotencyKeyHeaders []string `yaml:"-"`
	EventTypeHeader       string   `yaml:"-"`

	// RabbitMQ.
	QueueName     string `yaml:"queueName"`
	ConnectionURL string `yaml:"connectionUrl"`
	PrefetchCount int    `yaml:"prefetchCount"`
	DeclareQueue  bool   `yaml:"declareQueue"`

	// Broker sources.
	EventTypeFromHeader bool             `yaml:"eventTypeFromHeader"`
	AttributeHeaders    AttributeHeaders `yaml:"attributeHeaders"`

	// Kafka.
	BootstrapServers string        `yaml:"bootstrapServers"`
	Topics           []string      `yaml:"topics"`
	GroupID          string        `yaml:"groupId"`
	AutoOffsetReset  string        `yaml:"autoOffsetReset"`
	MaxPollRecords   int           `yaml:"maxPollRecords"`
	SecurityProtocol string        `yaml:"securityProtocol"`
	SaslMechanism    string        `yaml:"saslMechanism"`
	SaslUsername     string        `yaml:"saslUsername"`
	SaslPassword     secret.Secret `yaml:"saslPassword"`

	// NATS.
	Servers       string        `yaml:"servers"`
	Stream        string        `yaml:"stream"`
	Durable       string        `yaml:"durable"`
	FilterSubject string        `yaml:"filterSubject"`
	AckWaitMs     int           `yaml:"ackWaitMs"`
	BatchSize     int           `yaml:"batchSize"`
	Username      string        `yaml:"username"`
	Password      secret.Secret `yaml:"password"`
	Token         secret.Secret `yaml:"token"`
}

// RateLimit bounds the requests of one HTTP source.
type RateLimit struct {
	RequestsPerMinute int `yaml:"requestsPerMinute"`
}

// AttributeHeaders names the headers that broker sources read.
type AttributeHeaders struct {
	IdempotencyKey string `yaml:"idempotencyKey"`
	AggregateID    string `yaml:"aggregateId"`
	EventType      string `yaml:"eventType"`
}

// Filter drops messages by their headers before they are stored.
type Filter struct {
	Require []FilterRule `yaml:"require"`
	Exclude []FilterRule `yaml:"exclude"`
}

// FilterRule tests one header. Exactly one of Equals, In, Matches and
// Exists is set.
type FilterRule struct {
	Header  string   `yaml:"header"`
	Equals  *string  `yaml:"equals"`
	In      []string `yaml:"in"`
	Matches *string  `yaml:"matches"`
	Exists  *bool    `yaml:"exists"`
}

// Source and admin auth kinds.
const (
	AuthBearer = "bearer"
	AuthAPIKey = "api-key"
	AuthHMAC   = "hmac"
	// The provider presets of an HTTP source (presets.go).
	AuthStripe           = "stripe"
	AuthGitHub           = "github"
	AuthShopify          = "shopify"
	AuthSlack            = "slack"
	AuthStandardWebhooks = "standard-webhooks"
)

// HMAC signature payload formats, normalised to the upper-case names.
const (
	PayloadBody             = "BODY"
	PayloadTimestampDotBody = "TIMESTAMP_DOT_BODY"
)

// SourceAuth holds the credentials a request to a source or to the admin
// routes must carry.
type SourceAuth struct {
	Kind string `yaml:"-"`
	Type string `yaml:"type"`

	Token secret.Secret `yaml:"token"`
	Key   secret.Secret `yaml:"key"`

	// HeaderName defaults to X-API-Key for api-key and X-Signature for hmac.
	HeaderName string `yaml:"headerName"`

	Secret    secret.Secret `yaml:"secret"`
	Algorithm string        `yaml:"algorithm"`
	// SignaturePrefix is nil when unset (default "sha256="); an explicit
	// empty string means no prefix.
	SignaturePrefix    *string `yaml:"signaturePrefix"`
	TimestampHeader    string  `yaml:"timestampHeader"`
	TimestampTolerance int     `yaml:"timestampTolerance"`
	// SignaturePayloadFormat holds BODY or TIMESTAMP_DOT_BODY after loading.
	SignaturePayloadFormat string `yaml:"signaturePayloadFormat"`

	// PreviousSecrets are still accepted during a rotation by the provider
	// presets (stripe, github, shopify, slack, standard-webhooks).
	PreviousSecrets []secret.Secret `yaml:"previousSecrets"`
	// ToleranceSeconds bounds the age of a timestamped preset request
	// (stripe, slack, standard-webhooks) in both directions. Default 300.
	ToleranceSeconds int `yaml:"toleranceSeconds"`
	// DeduplicateOnBody makes the idempotency key of a github or shopify
	// source the digest of the signed body, since those providers do not
	// sign the delivery id header. The loader sets it (true) for those two
	// presets when unset; no other kind takes it.
	DeduplicateOnBody *bool `yaml:"deduplicateOnBody"`
}

// Retention configures the cleanup of final rows.
type Retention struct {
	Enabled bool            `yaml:"enabled"`
	Outbox  RetentionPolicy `yaml:"outbox"`
	Inbox   RetentionPolicy `yaml:"inbox"`
	Ledger  LedgerRetention `yaml:"ledger"`
}

// LedgerRetention is the cleanup of the delivery ledger. Unlike the table
// blocks it does not wait for retention.enabled: it runs whenever the
// ledger is written (outbox.ledger.enabled), so that a ledger on by
// default never grows without bound.
type LedgerRetention struct {
	Policy          string   `yaml:"policy"`
	MaxAge          Duration `yaml:"maxAge"`
	CleanupInterval Duration `yaml:"cleanupInterval"`
	BatchSize       int      `yaml:"batchSize"`
}

// LedgerCleanupRuns says whether the ledger's cleanup deletes anything: the ledger is
// written and its policy is AGE.
func (c *Config) LedgerCleanupRuns() bool {
	return c.Outbox.Ledger.Enabled && c.Retention.Ledger.Policy == PolicyAge
}

// Retention policies, in their documented upper case.
const (
	PolicyAge      = "AGE"
	PolicyCount    = "COUNT"
	PolicyDisabled = "DISABLED"
)

// RetentionPolicy is the policy of one table.
type RetentionPolicy struct {
	Policy          string    `yaml:"policy"`
	MaxAge          *Duration `yaml:"maxAge"`
	MaxCount        *int      `yaml:"maxCount"`
	CleanupInterval Duration  `yaml:"cleanupInterval"`
	BatchSize       int       `yaml:"batchSize"`
}
