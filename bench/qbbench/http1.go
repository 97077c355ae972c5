package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

// This file is the HTTP/1.1 message framing shared by the lean receiver
// (leanreceiver.go) and the lean ingest clients (leanclient.go).
//
// Why it exists: on the 2-core build machine PostgreSQL, the binary under
// test and the benchmark's own load side share the CPU, so every
// microsecond the harness spends per request is taken from QueueBox and
// lowers its ratio. Go's net/http costs tens of microseconds per request
// on each side (header maps, per-request goroutines and allocations); the
// harness's CPU is not QueueBox's cost, so the load side speaks just
// enough HTTP/1.1 over raw TCP to be correct for the peers it meets
// (Go's net/http client in queuebox-deliver, Go's net/http server under
// echo in queuebox-ingest), without allocating per request.
//
// It reads with bufio.Reader.ReadSlice, so a start line or header line
// longer than the reader's buffer is an error (errLineTooLong) and the
// connection is closed; neither peer sends such lines.

// head is what the lean code needs of a message head.
type head struct {
	status         int   // status code of a response; 0 for a request
	contentLength  int64 // -1 when absent
	chunked        bool  // Transfer-Encoding ends with chunked
	close          bool  // the connection ends after this message
	expectContinue bool  // Expect: 100-continue (requests)
	noBody         bool  // a response that never has a body (1xx, 204, 304)
}

var (
	errLineTooLong = errors.New("http1: line longer than the read buffer")
	errMalformed   = errors.New("http1: malformed message head")
)

// Header names and tokens compared without allocating.
var (
	hdrContentLength    = []byte("Content-Length")
	hdrTransferEncoding = []byte("Transfer-Encoding")
	hdrConnection       = []byte("Connection")
	hdrExpect           = []byte("Expect")
	tokClose            = []byte("close")
	tokKeepAlive        = []byte("keep-alive")
	tokChunked          = []byte("chunked")
	tok100Continue      = []byte("100-continue")
	http10              = []byte("HTTP/1.0")
)

// readHead reads a request head (response false) or a response head
// (response true): the start line and the header fields up to the empty
// line. It keeps only the fields that frame the message.
func readHead(br *bufio.Reader, response bool) (head, error) {
	h := head{contentLength: -1}
	line, err := readLine(br)
	if err != nil {
		return h, err
	}
	if response {
		// HTTP/1.x SP 3DIGIT [SP reason]
		if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
			return h, fmt.Errorf("%w: status line %q", errMalformed, line)
		}
		for _, c := range line[9:12] {
			if c < '0' || c > '9' {
				return h, fmt.Errorf("%w: status line %q", errMalformed, line)
			}
			h.status = h.status*10 + int(c-'0')
		}
		h.close = bytes.Equal(line[:8], http10)
		h.noBody = h.status < 200 || h.status == 204 || h.status == 304
	} else {
		// METHOD SP target SP HTTP/1.x
		sp := bytes.LastIndexByte(line, ' ')
		if sp < 0 || !bytes.HasPrefix(line[sp+1:], []byte("HTTP/1.")) {
			return h, fmt.Errorf("%w: request line %q", errMalformed, line)
		}
		h.close = bytes.Equal(line[sp+1:], http10)
	}
	for {
		line, err := readLine(br)
		if err != nil {
			return h, err
		}
		if len(line) == 0 {
			return h, nil
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || line[0] == ' ' || line[0] == '\t' {
			// No name, or an obsolete folded line.
			return h, fmt.Errorf("%w: header line %q", errMalformed, line)
		}
		name, value := line[:colon], bytes.Trim(line[colon+1:], " \t")
		switch {
		case bytes.EqualFold(name, hdrContentLength):
			n, ok := parseDecimal(value)
			if !ok || (h.contentLength >= 0 && h.contentLength != n) {
				return h, fmt.Errorf("%w: Content-Length %q", errMalformed, value)
			}
			h.contentLength = n
		case bytes.EqualFold(name, hdrTransferEncoding):
			// The last coding must be chunked; anything else cannot be
			// framed (RFC 9112 §6.3).
			if !lastTokenIs(value, tokChunked) {
				return h, fmt.Errorf("%w: Transfer-Encoding %q", errMalformed, value)
			}
			h.chunked = true
		case bytes.EqualFold(name, hdrConnection):
			if hasToken(value, tokClose) {
				h.close = true
			} else if hasToken(value, tokKeepAlive) {
				h.close = false
			}
		case !response && bytes.EqualFold(name, hdrExpect):
			h.expectContinue = bytes.EqualFold(value, tok100Continue)
		}
	}
}

// skipBody reads the body that h frames and discards it, except that its
// first bytes are appended to keep, up to cap(keep) (pass nil to keep
// nothing). A response without Content-Length or chunked coding runs to
// the end of the connection; h.close is then true.
func skipBody(br *bufio.Reader, h *head, keep []byte) ([]byte, error) {
	switch {
	case h.noBody:
		return keep, nil
	case h.chunked:
		return skipChunked(br, keep)
	case h.contentLength >= 0:
		return skipN(br, h.contentLength, keep)
	case h.status == 0:
		// A request without either field has no body (RFC 9112 §6.3).
		return keep, nil
	default:
		h.close = true
		keep, err := skipN(br, math.MaxInt64, keep)
		if errors.Is(err, io.EOF) {
			err = nil
		}
		return keep, err
	}
}

// skipN discards n bytes, appending the first ones to keep up to its
// capacity.
func skipN(br *bufio.Reader, n int64, keep []byte) ([]byte, error) {
	for n > 0 {
		if room := cap(keep) - len(keep); room > 0 {
			p, err := br.Peek(int(min(n, int64(room), int64(br.Size()))))
			keep = append(keep, p...)
			_, _ = br.Discard(len(p))
			n -= int64(len(p))
			if err != nil && len(p) == 0 {
				return keep, noEOF(err)
			}
			continue
		}
		d, err := br.Discard(int(min(n, math.MaxInt32)))
		n -= int64(d)
		if err != nil {
			return keep, noEOF(err)
		}
	}
	return keep, nil
}

// skipChunked discards a chunked body and its trailer section.
func skipChunked(br *bufio.Reader, keep []byte) ([]byte, error) {
	for {
		line, err := readLine(br)
		if err != nil {
			return keep, noEOF(err)
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i] // chunk extensions
		}
		size, ok := parseHex(bytes.TrimRight(line, " \t"))
		if !ok {
			return keep, fmt.Errorf("%w: chunk size %q", errMalformed, line)
		}
		if size == 0 {
			break
		}
		if keep, err = skipN(br, size, keep); err != nil {
			return keep, err
		}
		if line, err = readLine(br); err != nil {
			return keep, noEOF(err)
		}
		if len(line) != 0 {
			return keep, fmt.Errorf("%w: no CRLF after a chunk", errMalformed)
		}
	}
	for { // trailer fields, up to the empty line
		line, err := readLine(br)
		if err != nil {
			return keep, noEOF(err)
		}
		if len(line) == 0 {
			return keep, nil
		}
	}
}

// readLine returns the next line without its CRLF (or bare LF). The slice
// points into br's buffer and is valid until the next read.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, errLineTooLong
	}
	if err != nil {
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// noEOF turns an end of the connection inside a body into
// io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// parseDecimal parses a non-negative decimal of at most 18 digits.
func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// parseHex parses a chunk size of at most 15 hex digits.
func parseHex(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return n, true
}

// hasToken reports whether the comma-separated list holds tok, ignoring
// case and spaces.
func hasToken(list, tok []byte) bool {
	for len(list) > 0 {
		var t []byte
		if i := bytes.IndexByte(list, ','); i >= 0 {
			t, list = list[:i], list[i+1:]
		} else {
			t, list = list, nil
		}
		if bytes.EqualFold(bytes.Trim(t, " \t"), tok) {
			return true
		}
	}
	return false
}

// lastTokenIs reports whether the last element of the comma-separated
// list is tok, ignoring case and spaces.
func lastTokenIs(list, tok []byte) bool {
	if i := bytes.LastIndexByte(list, ','); i >= 0 {
		list = list[i+1:]
	}
	return bytes.EqualFold(bytes.Trim(list, " \t"), tok)
}
