package main

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"strconv"
	"syscall"
	"time"
)

// leanPoster gives every load client its own leanConn, so no client waits
// on a pool and no request allocates.
type leanPoster struct {
	conns []*leanConn
}

func newLeanPoster(addr string, clients int) *leanPoster {
	p := &leanPoster{conns: make([]*leanConn, clients)}
	for i := range p.conns {
		p.conns[i] = &leanConn{
			addr: addr,
			mac:  hmac.New(sha256.New, []byte(hmacSecret)),
		}
	}
	return p
}

func (p *leanPoster) post(ctx context.Context, client int, path, prefix string, key int64, sign bool) error {
	return p.conns[client].post(ctx, path, prefix, key, sign)
}

func (p *leanPoster) close() {
	for _, c := range p.conns {
		c.drop()
	}
}

// leanConn is one raw-TCP HTTP/1.1 keep-alive client: it dials on first
// use and after the server closed, writes each request in one write, and
// reads the status line, the framing headers and the body of the answer.
// It is used by one goroutine at a time. Its deadline is the load's
// context deadline, set once per load rather than per request.
type leanConn struct {
	addr     string
	conn     net.Conn
	br       *bufio.Reader
	deadline time.Time
	body     []byte    // the webhook of the current request
	req      []byte    // the rendered request, head and body
	mac      hash.Hash // HMAC-SHA256 with hmacSecret, reset per request
	sum      [sha256.Size]byte
	reply    []byte // the start of an unexpected answer's body, for its error
	replyBuf [512]byte
}

// post sends one webhook and checks the answer; see poster.
func (lc *leanConn) post(ctx context.Context, path, prefix string, key int64, sign bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	lc.body = appendBody(lc.body[:0], prefix, key)
	lc.req = lc.render(lc.req[:0], path, sign)
	reused := lc.conn != nil
	h, err := lc.roundTrip(ctx)
	if err != nil && reused && staleConn(err) {
		// The server closed the idle connection before reading the
		// request; as Go's transport does, send it once more on a new one.
		h, err = lc.roundTrip(ctx)
	}
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	if h.status != 202 && h.status != 200 {
		return fmt.Errorf("POST %s: %d %s", path, h.status, lc.reply)
	}
	return nil
}

// render appends the request as Go's net/http client would write it.
func (lc *leanConn) render(b []byte, path string, sign bool) []byte {
	b = append(b, "POST "...)
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, lc.addr...)
	b = append(b, "\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(lc.body)), 10)
	b = append(b, "\r\nContent-Type: application/json\r\n"...)
	if sign {
		lc.mac.Reset()
		lc.mac.Write(lc.body)
		b = append(b, "X-Signature: sha256="...)
		b = hex.AppendEncode(b, lc.mac.Sum(lc.sum[:0]))
		b = append(b, "\r\n"...)
	}
	b = append(b, "Accept-Encoding: gzip\r\n\r\n"...)
	return append(b, lc.body...)
}

// roundTrip writes lc.req and reads the answer. The body of a 200 or 202
// is discarded; that of another status is kept in lc.reply (512 bytes at
// most). Any error drops the connection.
func (lc *leanConn) roundTrip(ctx context.Context) (head, error) {
	if lc.conn == nil {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", lc.addr)
		if err != nil {
			return head{}, err
		}
		lc.conn, lc.br, lc.deadline = c, bufio.NewReaderSize(c, 4<<10), time.Time{}
	}
	if dl, _ := ctx.Deadline(); !dl.Equal(lc.deadline) {
		if err := lc.conn.SetDeadline(dl); err != nil {
			lc.drop()
			return head{}, err
		}
		lc.deadline = dl
	}
	if _, err := lc.conn.Write(lc.req); err != nil {
		lc.drop()
		return head{}, err
	}
	h, err := readHead(lc.br, true)
	for err == nil && h.status >= 100 && h.status < 200 {
		h, err = readHead(lc.br, true) // an interim answer: skip it
	}
	if err != nil {
		lc.drop()
		return h, err
	}
	var keep []byte // nil: discard the body
	if h.status != 202 && h.status != 200 {
		keep = lc.replyBuf[:0]
	}
	lc.reply, err = skipBody(lc.br, &h, keep)
	if err != nil || h.close {
		lc.drop()
	}
	return h, err
}

// drop closes the connection; the next request dials a new one.
func (lc *leanConn) drop() {
	if lc.conn != nil {
		_ = lc.conn.Close()
		lc.conn, lc.br = nil, nil
	}
}

// staleConn reports an error that a kept-alive connection the server had
// already closed gives on the first read or write.
func staleConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
