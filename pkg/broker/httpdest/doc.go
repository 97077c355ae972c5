// Package httpdest is the HTTP destination of QueueBox: a queuebox.Publisher
// that POSTs each delivery to one endpoint. It sits beside the other
// brokers under the name of the direction it sends in (a destination, as
// an inbox source is a source), and not "http", so that neither its own
// files nor its importers have to rename net/http.
//
// A request carries the row payload as a JSON body and four header groups,
// applied in this order: the standard headers (Content-Type, X-Message-Id,
// X-Topic, X-Attempt and, for a keyed row, X-Message-Key), the static
// destination headers, the auth header, and the row headers. A later group
// replaces a header of the same name in any letter case, except that no
// group removes a standard header: a second value is added next to it.
//
// Only a 2xx answer completes a delivery. Redirects are never followed, so
// credentials cannot be steered to another host. Every failure is an
// *Error whose text is redacted (configuration secrets, this destination's
// credentials and the current OAuth2 token) and whose body part is cut to
// Options.MaxErrorBodyBytes, ready for a log line or the last_error column.
//
// A plain http:// target that no proxy variable covers is published to by
// a small HTTP/1.1 client of the package (direct.go) that writes and reads
// on the publishing goroutine over a pool of kept-alive connections; an
// https:// target, one behind a proxy, and a caller's own client go
// through net/http's Transport (TLS, HTTP/2, proxies).
//
// The package also exports the URL rules that the configuration validator
// applies (CheckURL, CheckPath, JoinURL) and the response counter
// queuebox_http_publish_responses_total (NewResponsesCounter).
package httpdest
