// Command kfakectl is the small Kafka tool of the kafka-bridge smoke test,
// for machines without a Kafka broker: it runs a kfake cluster (the Kafka
// protocol in one process, github.com/twmb/franz-go/pkg/kfake; not a real
// broker) and produces and reads records with franz-go.
//
//	kfakectl serve PORT TOPIC[:PARTITIONS]...
//	kfakectl [-brokers ADDR] produce TOPIC BODY [key=KEY] [HEADER=VALUE...]
//	kfakectl [-brokers ADDR] wait TOPIC COUNT [TIMEOUT]
//
// serve listens on 127.0.0.1:PORT with the topics created, prints "ready"
// and runs until SIGINT or SIGTERM. wait prints the topic's records as JSON
// lines once it holds at least COUNT of them, and fails after TIMEOUT
// (default 30s).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	brokers := flag.String("brokers", envOr("KAFKA_BROKERS", "127.0.0.1:9092"), "the bootstrap brokers")
	flag.Parse()
	if err := run(*brokers, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "kfakectl:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func run(brokers string, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: kfakectl serve, produce or wait")
	}
	switch args[0] {
	case "serve":
		return serve(args[1:])
	case "produce":
		return produce(brokers, args[1:])
	case "wait":
		return wait(brokers, args[1:])
	}
	return fmt.Errorf("unknown command %q", args[0])
}

func serve(args []string) error {
	if len(args) < 1 {
		return errors.New("usage: kfakectl serve PORT TOPIC[:PARTITIONS] [TOPIC[:PARTITIONS]]")
	}
	port, err := strconv.Atoi(args[0])
	if err != nil {
		return fmt.Errorf("port: %w", err)
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port))
	if err != nil {
		return err
	}
	defer c.Close()
	for _, spec := range args[1:] {
		name, parts, _ := strings.Cut(spec, ":")
		n := 1
		if parts != "" {
			if n, err = strconv.Atoi(parts); err != nil {
				return fmt.Errorf("partitions of %s: %w", name, err)
			}
		}
		if err := c.CreateTopic(name, int32(n), nil); err != nil {
			return fmt.Errorf("create topic %s: %w", name, err)
		}
	}
	fmt.Println("ready", strings.Join(c.ListenAddrs(), ","))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}

func client(brokers string, opts ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(strings.Split(brokers, ",")...)}, opts...)...)
}

func produce(brokers string, args []string) error {
	if len(args) < 2 {
		return errors.New("usage: kfakectl produce TOPIC BODY [key=KEY] [HEADER=VALUE...]")
	}
	r := &kgo.Record{Topic: args[0], Value: []byte(args[1])}
	for _, kv := range args[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q is not NAME=VALUE", kv)
		}
		if k == "key" {
			r.Key = []byte(v)
			continue
		}
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
	}
	cl, err := client(brokers)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return cl.ProduceSync(ctx, r).FirstErr()
}

func wait(brokers string, args []string) error {
	if len(args) < 2 {
		return errors.New("usage: kfakectl wait TOPIC COUNT [TIMEOUT]")
	}
	count, err := strconv.Atoi(args[1])
	if err != nil {
		return fmt.Errorf("count: %w", err)
	}
	timeout := 30 * time.Second
	if len(args) > 2 {
		if timeout, err = time.ParseDuration(args[2]); err != nil {
			return fmt.Errorf("timeout: %w", err)
		}
	}
	cl, err := client(brokers, kgo.ConsumeTopics(args[0]), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	type line struct {
		Key     string              `json:"key"`
		Value   string              `json:"value"`
		Headers map[string][]string `json:"headers"`
	}
	var out []line
	for len(out) < count {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("%s holds %d records after %s, want %d", args[0], len(out), timeout, count)
		}
		fs.EachRecord(func(r *kgo.Record) {
			l := line{Key: string(r.Key), Value: string(r.Value), Headers: map[string][]string{}}
			for _, h := range r.Headers {
				l.Headers[h.Key] = append(l.Headers[h.Key], string(h.Value))
			}
			out = append(out, l)
		})
	}
	enc := json.NewEncoder(os.Stdout)
	for _, l := range out {
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return nil
}
