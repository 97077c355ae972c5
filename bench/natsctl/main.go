// Command natsctl is the small JetStream tool of the nats-bridge smoke
// test, for machines without the nats CLI:
//
//	natsctl [-server URL] stream-add NAME SUBJECT...
//	natsctl [-server URL] stream-rm NAME
//	natsctl [-server URL] pub SUBJECT BODY [HEADER=VALUE...]
//	natsctl [-server URL] wait STREAM COUNT [TIMEOUT]
//
// wait prints the stream's messages as JSON lines once it holds at least
// COUNT of them, and fails after TIMEOUT (default 30s).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	gonats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	server := flag.String("server", envOr("NATS_URL", gonats.DefaultURL), "the NATS server URL")
	flag.Parse()
	if err := run(*server, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "natsctl:", err)
		os.Exit(1)
	}
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func run(server string, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: natsctl [-server URL] stream-add|stream-rm|pub|wait ARGS")
	}
	nc, err := gonats.Connect(server, gonats.Name("natsctl"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, rest := args[0], args[1:]
	switch {
	case cmd == "stream-add" && len(rest) >= 2:
		err = createStream(ctx, js, jetstream.StreamConfig{Name: rest[0], Subjects: rest[1:], Storage: jetstream.FileStorage})
	case cmd == "stream-rm" && len(rest) == 1:
		err = js.DeleteStream(ctx, rest[0])
	case cmd == "pub" && len(rest) >= 2:
		err = publish(ctx, js, rest[0], rest[1], rest[2:])
	case cmd == "wait" && (len(rest) == 2 || len(rest) == 3):
		err = wait(ctx, js, rest)
	default:
		return fmt.Errorf("unknown command or wrong arguments: %s", strings.Join(args, " "))
	}
	return err
}

func publish(ctx context.Context, js jetstream.JetStream, subject, body string, headers []string) error {
	msg := &gonats.Msg{Subject: subject, Data: []byte(body), Header: gonats.Header{}}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, "=")
		if !ok {
			return fmt.Errorf("header %q: want NAME=VALUE", h)
		}
		msg.Header.Add(name, value)
	}
	ack, err := js.PublishMsg(ctx, msg)
	if err != nil {
		return fmt.Errorf("publish to %s: %w", subject, err)
	}
	fmt.Printf("published to %s: stream %s seq %d duplicate %v\n", subject, ack.Stream, ack.Sequence, ack.Duplicate)
	return nil
}

func wait(ctx context.Context, js jetstream.JetStream, args []string) error {
	want, err := strconv.Atoi(args[1])
	if err != nil {
		return fmt.Errorf("count %q: %w", args[1], err)
	}
	timeout := 30 * time.Second
	if len(args) == 3 {
		if timeout, err = time.ParseDuration(args[2]); err != nil {
			return fmt.Errorf("timeout %q: %w", args[2], err)
		}
	}
	s, err := js.Stream(ctx, args[0])
	if err != nil {
		return fmt.Errorf("stream %s: %w", args[0], err)
	}
	deadline := time.Now().Add(timeout)
	for {
		info, err := s.Info(ctx)
		if err != nil {
			return err
		}
		if int(info.State.Msgs) >= want {
			return printAll(ctx, s, info)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("stream %s holds %d messages after %s, want %d", args[0], info.State.Msgs, timeout, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func printAll(ctx context.Context, s jetstream.Stream, info *jetstream.StreamInfo) error {
	enc := json.NewEncoder(os.Stdout)
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := enc.Encode(map[string]any{"subject": m.Subject, "headers": m.Header, "data": string(m.Data)}); err != nil {
			return err
		}
	}
	return nil
}

// createStream creates the stream, and tries again while the server
// answers "error creating store for stream" (10049): Debian's nats-server
// 2.9 removes an account's store directory when its last stream goes, and
// a create at that moment fails although nothing is wrong with it.
func createStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) error {
	for {
		_, err := js.CreateStream(ctx, cfg)
		var api *jetstream.APIError
		if err == nil || !errors.As(err, &api) || api.ErrorCode != 10049 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
}
