package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"time"
)

// stdPoster posts with one shared net/http client (-http-stdlib), as the
// benchmark did before the lean clients.
type stdPoster struct {
	client *http.Client
	base   string
}

func newStdPoster(addr string, clients int) *stdPoster {
	return &stdPoster{
		base: "http://" + addr,
		client: &http.Client{
			Timeout:   10 * time.Second,
			Transport: &http.Transport{MaxIdleConns: 4 * clients, MaxIdleConnsPerHost: 4 * clients},
		},
	}
}

func (p *stdPoster) close() { p.client.CloseIdleConnections() }

// post implements poster; the client index is not used, the transport
// pools the connections.
func (p *stdPoster) post(ctx context.Context, _ int, path, prefix string, key int64, sign bool) error {
	url := p.base + path
	b := body(prefix, key)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if sign {
		mac := hmac.New(sha256.New, []byte(hmacSecret))
		mac.Write(b)
		req.Header.Set("X-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %d %s", url, resp.StatusCode, text)
	}
	return nil
}
