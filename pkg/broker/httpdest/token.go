package httpdest

import (
	"errors"
	"strconv"
	"time"

	"golang.org/x/oauth2"
)

// errInvalidTokenResponse reports a token response that is not a token:
// no access_token, a body that neither JSON nor a form, an error member in
// a 2xx answer, an expires_in that is not a whole number of seconds.
var errInvalidTokenResponse = errors.New("the response holds no usable access_token")

// maxTokenLifetime caps the cache time of one token. It keeps a huge
// expires_in from overflowing a Duration; an earlier refresh costs one
// token request.
const maxTokenLifetime = 24 * time.Hour

// tokenLifetime reads expires_in as the server sent it (a number, or a
// string as some servers send it) and returns the token's lifetime. A
// missing, zero or negative value means that the server did not say, so
// the default applies.
func tokenLifetime(tok *oauth2.Token) time.Duration {
	var s float64
	switch v := tok.Extra("expires_in").(type) {
	case float64:
		s = v
	case int64:
		s = float64(v)
	case string:
		s, _ = strconv.ParseFloat(v, 64)
	}
	switch {
	case s <= 0:
		return defaultTokenLifetime
	case s >= maxTokenLifetime.Seconds():
		return maxTokenLifetime
	}
	return time.Duration(s * float64(time.Second))
}

// tokenResponseError describes a token request whose answer held no
// usable token.
func (p *Publisher) tokenResponseError(code int, err error) *Error {
	return &Error{
		Destination:  p.opts.Name,
		StatusCode:   code,
		TokenRequest: true,
		msg:          p.stage(true) + ": invalid token response: " + err.Error(),
	}
}
