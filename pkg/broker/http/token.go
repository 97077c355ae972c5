package httpdest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// maxTokenResponseBytes bounds the token response that is parsed.
const maxTokenResponseBytes = 1 << 20

// errNoAccessToken reports a 2xx token response without an access token.
var errNoAccessToken = errors.New("the response holds no access_token")

// tokenResponse is the part of an RFC 6749 token response that QueueBox
// reads. token_type is not checked: the token is always sent as a bearer
// token, and servers vary in how they spell the type.
type tokenResponse struct {
	AccessToken string  `json:"access_token"`
	ExpiresIn   seconds `json:"expires_in"`
}

// seconds decodes expires_in sent as a JSON number or as a string, which
// some servers do.
type seconds float64

// UnmarshalJSON accepts 3600, 3600.0, "3600" and null.
func (s *seconds) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	if string(b) == "null" || len(b) == 0 {
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return errors.New("expires_in is not a number")
	}
	*s = seconds(v)
	return nil
}

// parseToken reads the access token and its lifetime from a 2xx token
// response, JSON or form encoded. Its errors never quote the body, which
// may hold a token.
func parseToken(resp *http.Response) (string, time.Duration, error) {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponseBytes))
	if err != nil {
		return "", 0, errors.New("reading the response failed")
	}
	var tr tokenResponse
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType == "application/x-www-form-urlencoded" {
		values, err := url.ParseQuery(string(raw))
		if err != nil {
			return "", 0, errors.New("the response is not a valid form")
		}
		tr.AccessToken = values.Get("access_token")
		if v, err := strconv.ParseFloat(values.Get("expires_in"), 64); err == nil {
			tr.ExpiresIn = seconds(v)
		}
	} else if err := json.Unmarshal(raw, &tr); err != nil {
		return "", 0, errors.New("the response is not a JSON token response")
	}
	if tr.AccessToken == "" {
		return "", 0, errNoAccessToken
	}
	return tr.AccessToken, lifetime(tr.ExpiresIn), nil
}

// maxTokenLifetime caps the cache time of one token. It keeps a huge
// expires_in from overflowing a Duration; an earlier refresh costs one
// token request.
const maxTokenLifetime = 24 * time.Hour

// lifetime converts expires_in to a duration. A missing, zero or negative
// value means that the server did not say, so the default applies.
func lifetime(s seconds) time.Duration {
	if s <= 0 {
		return defaultTokenLifetime
	}
	if s >= seconds(maxTokenLifetime/time.Second) {
		return maxTokenLifetime
	}
	return time.Duration(float64(s) * float64(time.Second))
}

// tokenResponseError describes a 2xx token response that QueueBox could
// not use.
func (p *Publisher) tokenResponseError(code int, err error) *Error {
	return &Error{
		Destination:  p.opts.Name,
		StatusCode:   code,
		TokenRequest: true,
		msg:          p.stage(true) + ": invalid token response: " + err.Error(),
	}
}
