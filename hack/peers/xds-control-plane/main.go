// Command xds-control-plane is a state-of-the-world ADS server built on go-control-plane, the way Envoy
// Gateway's global rate-limit runner serves the upstream rate-limit service: a snapshot cache holding
// ratelimit.config.ratelimit.v3.RateLimitConfig resources. Tests use it as an independent xDS server.
//
// The resources come from one YAML or JSON file: a list of RateLimitConfig objects in the proto3 JSON
// mapping (snake_case or lowerCamel field names), for example:
//
//	[{ name: example, domain: example,
//	   descriptors: [{ key: remote_address, rate_limit: { unit: MINUTE, requests_per_unit: 5 } }] }]
//
// The file is read again whenever its content changes (polled, so a file replaced by rename is seen too).
// A file that does not parse is logged and the last good snapshot stays. Every node gets the same
// snapshot; its version is a hash of the file's content.
//
// It prints one line "listening on <host:port>" on stdout once it serves, then logs requests, ACKs and
// NACKs as JSON lines on stderr.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	core "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	discoverygrpc "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	"github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	serverv3 "github.com/envoyproxy/go-control-plane/pkg/server/v3"
	rlsconfv3 "github.com/envoyproxy/go-control-plane/ratelimit/config/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"sigs.k8s.io/yaml"
)

// allNodes gives every node the one snapshot.
type allNodes struct{}

func (allNodes) ID(*core.Node) string { return "all" }

func main() {
	listen := flag.String("listen", "127.0.0.1:18000", "address to serve ADS on (port 0 picks a free one)")
	configPath := flag.String("config", "", "YAML or JSON file holding a list of RateLimitConfig resources (required)")
	poll := flag.Duration("poll", 100*time.Millisecond, "how often the file is checked for changes")
	flag.Parse()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if *configPath == "" {
		fmt.Fprintln(os.Stderr, "xds-control-plane: -config is required")
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	snapshots := cache.NewSnapshotCache(false, allNodes{}, nil)
	last := ""
	load := func() {
		data, err := os.ReadFile(*configPath)
		if err != nil {
			log.Error("config unreadable", "path", *configPath, "err", err)
			return
		}
		sum := sha256.Sum256(data)
		version := hex.EncodeToString(sum[:8])
		if version == last {
			return
		}
		last = version
		resources, err := parseConfigs(data)
		if err != nil {
			log.Error("config rejected", "path", *configPath, "version", version, "err", err)
			return
		}
		snapshot, err := cache.NewSnapshot(version, map[resourcev3.Type][]types.Resource{resourcev3.RateLimitConfigType: resources})
		if err == nil {
			err = snapshot.Consistent()
		}
		if err == nil {
			err = snapshots.SetSnapshot(ctx, "all", snapshot)
		}
		if err != nil {
			log.Error("snapshot rejected", "version", version, "err", err)
			return
		}
		log.Info("snapshot set", "version", version, "resources", len(resources))
	}
	load()

	server := serverv3.NewServer(ctx, snapshots, serverv3.CallbackFuncs{
		StreamRequestFunc: func(id int64, req *discoverygrpc.DiscoveryRequest) error {
			switch {
			case req.ErrorDetail != nil:
				log.Warn("nack", "stream", id, "node", req.GetNode().GetId(), "version", req.VersionInfo, "nonce", req.ResponseNonce, "error", req.ErrorDetail.GetMessage())
			case req.ResponseNonce != "":
				log.Info("ack", "stream", id, "node", req.GetNode().GetId(), "version", req.VersionInfo, "nonce", req.ResponseNonce)
			default:
				log.Info("request", "stream", id, "node", req.GetNode().GetId(), "type", req.TypeUrl, "version", req.VersionInfo)
			}
			return nil
		},
		StreamResponseFunc: func(_ context.Context, id int64, _ *discoverygrpc.DiscoveryRequest, resp *discoverygrpc.DiscoveryResponse) {
			log.Info("response", "stream", id, "version", resp.VersionInfo, "nonce", resp.Nonce, "resources", len(resp.Resources))
		},
	})
	grpcServer := grpc.NewServer()
	discoverygrpc.RegisterAggregatedDiscoveryServiceServer(grpcServer, server)
	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "xds-control-plane: listen %s: %v\n", *listen, err)
		os.Exit(1)
	}
	fmt.Printf("listening on %s\n", listener.Addr())

	go func() {
		ticker := time.NewTicker(*poll)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				load()
			}
		}
	}()
	go func() {
		<-ctx.Done()
		grpcServer.Stop()
	}()
	if err := grpcServer.Serve(listener); err != nil {
		fmt.Fprintf(os.Stderr, "xds-control-plane: %v\n", err)
		os.Exit(1)
	}
}

func parseConfigs(data []byte) ([]types.Resource, error) {
	asJSON, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(asJSON, &items); err != nil {
		return nil, fmt.Errorf("expected a list of RateLimitConfig objects: %w", err)
	}
	resources := make([]types.Resource, 0, len(items))
	for i, item := range items {
		config := &rlsconfv3.RateLimitConfig{}
		if err := protojson.Unmarshal(item, config); err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		if config.Name == "" {
			return nil, fmt.Errorf("[%d]: name is required", i)
		}
		resources = append(resources, config)
	}
	return resources, nil
}
