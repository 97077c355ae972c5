package config

func (v *validator) retention() {
	r, path := v.cfg.Retention, keyPath{"retention"}
	v.retentionPolicy(r.Outbox, path.key("outbox"), r.Enabled, PolicyAge, PolicyCount, PolicyDisabled)
	v.retentionPolicy(r.Inbox, path.key("inbox"), r.Enabled, PolicyAge, PolicyDisabled)
	v.ledgerRetention(r.Ledger, path.key("ledger"))
}

// ledgerRetention checks the ledger's cleanup, which runs with the ledger
// (outbox.ledger.enabled), not with retention.enabled: its settings are
// checked when the ledger is on and its policy deletes.
func (v *validator) ledgerRetention(p LedgerRetention, path keyPath) {
	policyOK := v.oneOf(path.key("policy"), p.Policy, PolicyAge, PolicyDisabled)
	v.positive(path.key("batchSize"), int64(p.BatchSize))
	if !policyOK || !v.cfg.LedgerCleanupRuns() {
		return
	}
	if p.MaxAge.D <= 0 {
		v.add(path.key("maxAge"), "must be above 0 with policy AGE, got %q", p.MaxAge.Text)
	}
	if p.CleanupInterval.D <= 0 {
		v.add(path.key("cleanupInterval"), "must be above 0 with policy AGE, got %q", p.CleanupInterval.Text)
	}
}

// retentionPolicy checks the enumeration and the ranges always, and the
// keys that a policy requires only when retention.enabled is true, because
// the policy blocks apply only then.
func (v *validator) retentionPolicy(p RetentionPolicy, path keyPath, enabled bool, allowed ...string) {
	policyOK := v.oneOf(path.key("policy"), p.Policy, allowed...)
	v.positive(path.key("batchSize"), int64(p.BatchSize))
	if p.MaxCount != nil {
		v.positive(path.key("maxCount"), int64(*p.MaxCount))
	}
	if !enabled {
		return
	}
	// The cleanup job of each table runs whenever retention is on, even
	// with policy DISABLED, and a zero interval would stop it at once.
	if p.CleanupInterval.D <= 0 {
		v.add(path.key("cleanupInterval"), "must be above 0, got %q", p.CleanupInterval.Text)
	}
	if !policyOK || p.Policy == PolicyDisabled {
		return
	}
	enabledRef := keyPath{"retention", "enabled"}.ref()
	switch {
	case p.Policy == PolicyAge && p.MaxAge == nil:
		v.add(path.key("maxAge"), "required by policy AGE while %s is true", enabledRef)
	case p.Policy == PolicyAge && p.MaxAge.D <= 0:
		v.add(path.key("maxAge"), "must be above 0, got %s", p.MaxAge.Text)
	case p.Policy == PolicyCount && p.MaxCount == nil:
		v.add(path.key("maxCount"), "required by policy COUNT while %s is true", enabledRef)
	}
}
