package queuebox

// Logger receives the library's log lines. Every message and every string
// or error field has passed through Sanitize before it arrives. The
// library calls it from several goroutines at once. Field keys are
// snake_case: message_id, source, attempt, err, ...
type Logger interface {
	Info(message string, fields map[string]any)
	Warn(message string, fields map[string]any)
	Error(message string, fields map[string]any)
}

// noLogger is the default: the library prints nothing.
type noLogger struct{}

func (noLogger) Info(string, map[string]any)  {}
func (noLogger) Warn(string, map[string]any)  {}
func (noLogger) Error(string, map[string]any) {}

// logs is the worker's redacting front of the Logger.
type logs struct{ to Logger }

func (l logs) info(msg string, kv ...any)  { l.to.Info(Sanitize(msg), fields(kv)) }
func (l logs) warn(msg string, kv ...any)  { l.to.Warn(Sanitize(msg), fields(kv)) }
func (l logs) error(msg string, kv ...any) { l.to.Error(Sanitize(msg), fields(kv)) }

// fields turns key, value pairs into a map, redacting strings and errors.
func fields(kv []any) map[string]any {
	out := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		key, _ := kv[i].(string)
		switch v := kv[i+1].(type) {
		case error:
			out[key] = SanitizeError(v)
		case string:
			out[key] = Sanitize(v)
		default:
			out[key] = v
		}
	}
	return out
}
