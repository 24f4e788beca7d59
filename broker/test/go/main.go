// sarama-client: a small Kafka client built on github.com/IBM/sarama that the integration test
// broker/test/integration/sarama.test.ts runs against minnow. It is built twice from this one
// source: with go.mod (a current sarama), with -modfile=go.sarama-1.40.1.mod (sarama 1.40.1, the
// last release whose default config.Version is V1_0_0_0: OffsetCommit v1, DescribeConfigs v0) and
// with -modfile=go.sarama-1.27.0.mod (sarama 1.27.0, the last whose default is V0_8_2_0: Produce v0
// and Fetch v0 with message format v0, which minnow refuses with UNSUPPORTED_VERSION).
// The sarama config is left at its defaults except where a flag says otherwise, so the requests
// are the ones a user of that release sends.
//
// Every subcommand prints one JSON object on stdout and exits non-zero on any error, with the
// error on stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: sarama-client produce|consume|read|offset-for-time|describe-config|reassign [flags]"))
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	brokers := fs.String("brokers", "127.0.0.1:9092", "bootstrap brokers, comma separated")
	topic := fs.String("topic", "", "topic")
	count := fs.Int("count", 10, "records to produce or to consume")
	prefix := fs.String("prefix", "record", "value prefix of produced records")
	group := fs.String("group", "", "consumer group (consume)")
	timeout := fs.Duration("timeout", 30*time.Second, "give up after this long")
	timeMs := fs.Int64("time", -1, "offset-for-time: a record timestamp in ms since the epoch")
	debug := fs.Bool("debug", false, "log sarama's own messages to stderr")
	_ = fs.Parse(os.Args[2:])
	if *topic == "" {
		fail(errors.New("-topic is required"))
	}
	if *debug {
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.LstdFlags|log.Lmicroseconds)
	}
	addrs := strings.Split(*brokers, ",")
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	var out any
	var err error
	switch os.Args[1] {
	case "produce":
		out, err = produce(addrs, *topic, *count, *prefix)
	case "consume":
		if *group == "" {
			fail(errors.New("-group is required"))
		}
		out, err = consume(ctx, addrs, *topic, *group, *count)
	case "read":
		out, err = read(ctx, addrs, *topic, *count)
	case "offset-for-time":
		out, err = offsetForTime(addrs, *topic, *timeMs)
	case "describe-config":
		out, err = describeConfig(addrs, *topic)
	case "reassign":
		out, err = reassign(addrs, *topic)
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sarama-client:", err)
	os.Exit(1)
}

// newConfig is sarama's default config (config.Version included), plus what a caller needs to
// see results: successes for the sync producer, errors from the consumer group.
func newConfig() *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.ClientID = "sarama-client"
	cfg.Producer.Return.Successes = true
	cfg.Consumer.Return.Errors = true
	return cfg
}

type produced struct {
	KafkaVersion string  `json:"kafkaVersion"`
	Offsets      []int64 `json:"offsets"`
}

func produce(addrs []string, topic string, count int, prefix string) (*produced, error) {
	cfg := newConfig()
	p, err := sarama.NewSyncProducer(addrs, cfg)
	if err != nil {
		return nil, fmt.Errorf("producer: %w", err)
	}
	// Closed once: a second Close of a sarama producer sends on a closed channel and panics
	// (asyncProducer.shutdown), which is what a deferred Close after the final one did.
	closed := false
	defer func() {
		if !closed {
			_ = p.Close()
		}
	}()
	res := &produced{KafkaVersion: cfg.Version.String(), Offsets: []int64{}}
	msgs := make([]*sarama.ProducerMessage, count)
	for i := range msgs {
		msgs[i] = &sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.StringEncoder(fmt.Sprintf("%s-%d", prefix, i))}
	}
	// One request for all: the records share a batch, as a busy producer's would.
	if err := p.SendMessages(msgs); err != nil {
		var perMessage sarama.ProducerErrors
		if errors.As(err, &perMessage) && len(perMessage) > 0 {
			// What the broker answered, not just "failed to deliver N messages".
			err = fmt.Errorf("%w (first: %v)", err, perMessage[0].Err)
		}
		return nil, fmt.Errorf("produce to %s: %w", topic, err)
	}
	for _, m := range msgs {
		res.Offsets = append(res.Offsets, m.Offset)
	}
	closed = true
	return res, p.Close()
}

type record struct {
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Value     string `json:"value"`
}

type consumed struct {
	KafkaVersion string          `json:"kafkaVersion"`
	Records      []record        `json:"records"`
	Committed    map[int32]int64 `json:"committed"`
}

// handler reads until `want` records arrived, marks them, commits, then ends the session.
type handler struct {
	want    int
	mu      sync.Mutex
	records []record
	done    context.CancelFunc
}

func (h *handler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (h *handler) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for {
		select {
		case m, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			h.mu.Lock()
			enough := len(h.records) >= h.want
			if !enough {
				h.records = append(h.records, record{Partition: m.Partition, Offset: m.Offset, Value: string(m.Value)})
				s.MarkMessage(m, "")
				enough = len(h.records) >= h.want
			}
			h.mu.Unlock()
			if enough {
				s.Commit()
				h.done()
				return nil
			}
		case <-s.Context().Done():
			return nil
		}
	}
}

func consume(ctx context.Context, addrs []string, topic, group string, count int) (*consumed, error) {
	cfg := newConfig()
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	// Commits happen when the handler calls Commit(), so the test knows exactly what was committed.
	cfg.Consumer.Offsets.AutoCommit.Enable = false
	cg, err := sarama.NewConsumerGroup(addrs, group, cfg)
	if err != nil {
		return nil, fmt.Errorf("consumer group: %w", err)
	}
	var errMu sync.Mutex
	var groupErrs []error
	errsDone := make(chan struct{})
	go func() {
		for e := range cg.Errors() {
			errMu.Lock()
			groupErrs = append(groupErrs, e)
			errMu.Unlock()
		}
		close(errsDone)
	}()

	sessionCtx, stop := context.WithCancel(ctx)
	defer stop()
	h := &handler{want: count, done: stop}
	for sessionCtx.Err() == nil {
		if err := cg.Consume(sessionCtx, []string{topic}, h); err != nil {
			_ = cg.Close()
			return nil, fmt.Errorf("consume: %w", err)
		}
	}
	closeErr := cg.Close()
	<-errsDone
	if len(groupErrs) > 0 {
		return nil, fmt.Errorf("consumer group errors: %v", errors.Join(groupErrs...))
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("timed out with %d of %d records", len(h.records), count)
	}
	if closeErr != nil {
		return nil, fmt.Errorf("closing the consumer group: %w", closeErr)
	}
	committed, err := committedOffsets(addrs, topic, group)
	if err != nil {
		return nil, err
	}
	return &consumed{KafkaVersion: cfg.Version.String(), Records: h.records, Committed: committed}, nil
}

type readResult struct {
	KafkaVersion string   `json:"kafkaVersion"`
	Records      []record `json:"records"`
}

// read consumes partition 0 from the oldest offset without a group (ListOffsets, then Fetch), as
// clients on sarama's old default version (V0_8_2_0, which cannot use groups) do.
func read(ctx context.Context, addrs []string, topic string, count int) (*readResult, error) {
	cfg := newConfig()
	c, err := sarama.NewConsumer(addrs, cfg)
	if err != nil {
		return nil, fmt.Errorf("consumer: %w", err)
	}
	defer c.Close()
	pc, err := c.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		return nil, fmt.Errorf("consume %s/0: %w", topic, err)
	}
	defer pc.Close()
	out := &readResult{KafkaVersion: cfg.Version.String(), Records: []record{}}
	for len(out.Records) < count {
		select {
		case m := <-pc.Messages():
			out.Records = append(out.Records, record{Partition: m.Partition, Offset: m.Offset, Value: string(m.Value)})
		case e := <-pc.Errors():
			return nil, fmt.Errorf("fetching %s/0: %w", topic, e.Err)
		case <-ctx.Done():
			return nil, fmt.Errorf("timed out with %d of %d records", len(out.Records), count)
		}
	}
	return out, nil
}

type offsetResult struct {
	Offset int64 `json:"offset"`
}

// offsetForTime is ListOffsets by timestamp for partition 0: the first offset whose record is at
// least timeMs old, or -1.
func offsetForTime(addrs []string, topic string, timeMs int64) (*offsetResult, error) {
	c, err := sarama.NewClient(addrs, newConfig())
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	defer c.Close()
	off, err := c.GetOffset(topic, 0, timeMs)
	if err != nil {
		return nil, fmt.Errorf("offset of %s/0 for time %d: %w", topic, timeMs, err)
	}
	return &offsetResult{Offset: off}, nil
}

// committedOffsets asks the broker (OffsetFetch) what the group has committed for the topic.
func committedOffsets(addrs []string, topic, group string) (map[int32]int64, error) {
	admin, err := sarama.NewClusterAdmin(addrs, newConfig())
	if err != nil {
		return nil, fmt.Errorf("admin: %w", err)
	}
	defer admin.Close()
	res, err := admin.ListConsumerGroupOffsets(group, map[string][]int32{topic: {0}})
	if err != nil {
		return nil, fmt.Errorf("fetching committed offsets: %w", err)
	}
	out := map[int32]int64{}
	for p, block := range res.Blocks[topic] {
		if block.Err != sarama.ErrNoError {
			return nil, fmt.Errorf("committed offset of %s/%d: %w", topic, p, block.Err)
		}
		out[p] = block.Offset
	}
	return out, nil
}

type configEntry struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Default bool   `json:"default"`
}

type described struct {
	KafkaVersion string        `json:"kafkaVersion"`
	Configs      []configEntry `json:"configs"`
}

func describeConfig(addrs []string, topic string) (*described, error) {
	cfg := newConfig()
	admin, err := sarama.NewClusterAdmin(addrs, cfg)
	if err != nil {
		return nil, fmt.Errorf("admin: %w", err)
	}
	defer admin.Close()
	entries, err := admin.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: topic})
	if err != nil {
		return nil, fmt.Errorf("describe config of %s: %w", topic, err)
	}
	out := &described{KafkaVersion: cfg.Version.String(), Configs: []configEntry{}}
	for _, e := range entries {
		out.Configs = append(out.Configs, configEntry{Name: e.Name, Value: e.Value, Default: e.Default})
	}
	return out, nil
}

type reassigned struct {
	Same   string `json:"same"`
	Other  string `json:"other"`
	Listed int    `json:"listed"`
}

// reassign moves partition 0 of the topic to broker 1 (its replica set already) and to broker 2
// (refused), then lists reassignments; errors are results. Needs config.Version 2.4+ (sarama 1.61).
func reassign(addrs []string, topic string) (*reassigned, error) {
	admin, err := sarama.NewClusterAdmin(addrs, newConfig())
	if err != nil {
		return nil, fmt.Errorf("admin: %w", err)
	}
	defer admin.Close()
	text := func(err error) string {
		if err == nil {
			return "ok"
		}
		return err.Error()
	}
	out := &reassigned{
		Same:  text(admin.AlterPartitionReassignments(topic, [][]int32{{1}})),
		Other: text(admin.AlterPartitionReassignments(topic, [][]int32{{2}})),
	}
	listed, err := admin.ListPartitionReassignments(topic, []int32{0})
	if err != nil {
		return nil, fmt.Errorf("list reassignments of %s: %w", topic, err)
	}
	out.Listed = len(listed[topic])
	return out, nil
}
