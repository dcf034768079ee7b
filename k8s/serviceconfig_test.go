package k8s_test

// Checks of grpc-service-config.json, the service config that rules clients
// use (docs/deploy.md, Balancing gRPC clients): grpc-go's own parser takes
// it, and it retries exactly the RulesService methods that the generated
// descriptors mark NO_SIDE_EFFECTS and that are unary, so the file cannot
// drift from the protos.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	sigsjson "sigs.k8s.io/json"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/k8s"
)

// rulesService is the service whose calls the config balances and retries.
var rulesService = damonev1.File_damone_v1_rules_service_proto.Services().ByName("RulesService")

// jsonServiceConfig holds the parts of gRPC's service config schema that the
// file uses. It is decoded case-sensitively and strictly: grpc-go's parser
// matches field names case-insensitively and skips unknown ones, while
// other languages' parsers (Python's, for one) are case-sensitive, so a
// misspelt field would retry in Go and silently not elsewhere.
type jsonServiceConfig struct {
	LoadBalancingConfig []map[string]map[string]any `json:"loadBalancingConfig"`
	MethodConfig        []struct {
		Name []struct {
			Service string `json:"service"`
			Method  string `json:"method"`
		} `json:"name"`
		RetryPolicy *struct {
			MaxAttempts          int      `json:"maxAttempts"`
			InitialBackoff       string   `json:"initialBackoff"`
			MaxBackoff           string   `json:"maxBackoff"`
			BackoffMultiplier    float64  `json:"backoffMultiplier"`
			RetryableStatusCodes []string `json:"retryableStatusCodes"`
		} `json:"retryPolicy"`
	} `json:"methodConfig"`
	RetryThrottling *struct {
		MaxTokens  float64 `json:"maxTokens"`
		TokenRatio float64 `json:"tokenRatio"`
	} `json:"retryThrottling"`
}

// parseWithGRPC parses js with grpc-go's service config parser, the one a
// channel uses for a resolver's config, and returns the parsed config.
func parseWithGRPC(js string) (*grpc.ServiceConfig, error) {
	r := manual.NewBuilderWithScheme("sccheck")
	r.InitialState(resolver.State{})
	conn, err := grpc.NewClient(r.Scheme()+":///unused", grpc.WithResolvers(r),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.Connect() // builds the resolver, which gives us the channel's parser
	pr := r.CC().ParseServiceConfig(js)
	if pr.Err != nil {
		return nil, pr.Err
	}
	sc, ok := pr.Config.(*grpc.ServiceConfig)
	if !ok {
		return nil, fmt.Errorf("grpc-go parsed the config into %T", pr.Config)
	}
	return sc, nil
}

// checkServiceConfig returns what is wrong with the service config js.
func checkServiceConfig(js []byte) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	parsed, err := parseWithGRPC(string(js))
	if err != nil {
		return []error{fmt.Errorf("grpc-go's parser refuses it: %v", err)}
	}
	var sc jsonServiceConfig
	strictErrs, err := sigsjson.UnmarshalStrict(js, &sc)
	if err != nil {
		return []error{fmt.Errorf("decode: %v", err)}
	}
	for _, e := range strictErrs {
		fail("strict decode (gRPC's field names are case-sensitive): %v", e)
	}

	// round_robin first: pick_first, the default, would pin every call to
	// the first address DNS returns.
	if len(sc.LoadBalancingConfig) == 0 {
		fail("no loadBalancingConfig: the channel would pick_first one pod")
	} else if _, ok := sc.LoadBalancingConfig[0]["round_robin"]; !ok || len(sc.LoadBalancingConfig[0]) != 1 {
		fail("loadBalancingConfig[0] is %v, want round_robin", sc.LoadBalancingConfig[0])
	}

	retried := map[string]bool{} // full method names with a retry policy
	for i, mc := range sc.MethodConfig {
		for _, n := range mc.Name {
			id := fmt.Sprintf("methodConfig[%d] %s/%s", i, n.Service, n.Method)
			if n.Method == "" {
				fail("%s: names a whole service; name each method, so that a stream or a new method with side effects is never retried by default", id)
				continue
			}
			d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(n.Service))
			sd, ok := d.(protoreflect.ServiceDescriptor)
			if err != nil || !ok {
				fail("%s: no service %q in the generated descriptors", id, n.Service)
				continue
			}
			md := sd.Methods().ByName(protoreflect.Name(n.Method))
			if md == nil {
				fail("%s: service %s has no method %q", id, n.Service, n.Method)
				continue
			}
			if mc.RetryPolicy == nil {
				continue
			}
			if md.IsStreamingClient() || md.IsStreamingServer() {
				fail("%s: a streaming method is retried only until the first message; its clients resend themselves", id)
			}
			if lvl := md.Options().(*descriptorpb.MethodOptions).GetIdempotencyLevel(); lvl != descriptorpb.MethodOptions_NO_SIDE_EFFECTS {
				fail("%s: retried, but its idempotency_level is %v, not NO_SIDE_EFFECTS", id, lvl)
			}
			path := "/" + n.Service + "/" + n.Method
			retried[path] = true
			// What grpc-go makes of it: the same method, retrying UNAVAILABLE.
			if rp := parsed.Methods[path].RetryPolicy; rp == nil || !rp.RetryableStatusCodes[codes.Unavailable] {
				fail("%s: grpc-go's parsed config does not retry UNAVAILABLE for %s", id, path)
			}
		}
		if rp := mc.RetryPolicy; rp != nil {
			id := fmt.Sprintf("methodConfig[%d] retryPolicy", i)
			// Only UNAVAILABLE: the call never ran, or ran on a pod that went
			// away. Other codes are answers (INVALID_ARGUMENT) or a budget
			// spent (DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED) that a retry
			// would not fix, only repeat.
			if !slices.Equal(rp.RetryableStatusCodes, []string{"UNAVAILABLE"}) {
				fail("%s: retryableStatusCodes %v, want [UNAVAILABLE]", id, rp.RetryableStatusCodes)
			}
			// gRPC clients cap attempts at 5 (grpc-go's default limit); more
			// would read as a promise the clients do not keep.
			if rp.MaxAttempts < 2 || rp.MaxAttempts > 5 {
				fail("%s: maxAttempts %d, want 2 to 5", id, rp.MaxAttempts)
			}
			for _, b := range []string{rp.InitialBackoff, rp.MaxBackoff} {
				d, err := time.ParseDuration(b)
				if !strings.HasSuffix(b, "s") || err != nil || d <= 0 || d > 10*time.Second {
					fail("%s: backoff %q, want seconds such as \"0.05s\", above 0 and at most 10s", id, b)
				}
			}
		}
	}

	// Every unary method without side effects is retried: a new one must
	// be added here (or the config would silently not cover it).
	ms := rulesService.Methods()
	for i := range ms.Len() {
		md := ms.Get(i)
		path := "/" + string(rulesService.FullName()) + "/" + string(md.Name())
		unary := !md.IsStreamingClient() && !md.IsStreamingServer()
		safe := md.Options().(*descriptorpb.MethodOptions).GetIdempotencyLevel() == descriptorpb.MethodOptions_NO_SIDE_EFFECTS
		if unary && safe && !retried[path] {
			fail("%s is unary and NO_SIDE_EFFECTS but has no retry policy", path)
		}
	}
	if sc.RetryThrottling == nil {
		fail("no retryThrottling: with the whole fleet down, every client would retry every call")
	}
	return errs
}

func readServiceConfig(t *testing.T) []byte {
	t.Helper()
	js, err := os.ReadFile(filepath.Join(k8s.Dir(), "grpc-service-config.json"))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func TestServiceConfig(t *testing.T) {
	for _, err := range checkServiceConfig(readServiceConfig(t)) {
		t.Error(err)
	}
}

// TestServiceConfigRetriesTheIdempotentMethods pins down, independently of
// the checker, what the file must cover: the five unary methods the proto
// marks NO_SIDE_EFFECTS, and not the ValidateGames stream.
func TestServiceConfigRetriesTheIdempotentMethods(t *testing.T) {
	sc, err := parseWithGRPC(string(readServiceConfig(t)))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"GetInitialPosition", "ListLegalMoves", "ApplyMove", "Perft", "ValidateGame"} {
		rp := sc.Methods["/damone.v1.RulesService/"+m].RetryPolicy
		if rp == nil || !rp.RetryableStatusCodes[codes.Unavailable] || len(rp.RetryableStatusCodes) != 1 || rp.MaxAttempts < 2 {
			t.Errorf("%s: retry policy %+v, want retries on UNAVAILABLE only", m, rp)
		}
	}
	for path := range sc.Methods {
		if strings.HasSuffix(path, "/ValidateGames") || !strings.HasPrefix(path, "/damone.v1.RulesService/") {
			t.Errorf("the config names %s", path)
		}
	}
	if len(sc.Methods) != 5 {
		t.Errorf("the config names %d methods, want 5", len(sc.Methods))
	}
}

// TestServiceConfigChecksCatchMistakes makes one mistake at a time and
// expects checkServiceConfig to name it.
func TestServiceConfigChecksCatchMistakes(t *testing.T) {
	js := string(readServiceConfig(t))
	for _, m := range []struct{ name, old, new, want string }{
		{"the stream retried", `"method": "Perft" }`, `"method": "Perft" },
        { "service": "damone.v1.RulesService", "method": "ValidateGames" }`, "a streaming method"},
		{"a method with side effects", `"service": "damone.v1.RulesService", "method": "Perft"`, `"service": "damone.v1.GameService", "method": "MakeMove"`, "not NO_SIDE_EFFECTS"},
		{"a method that does not exist", `"method": "Perft"`, `"method": "PerftDivide"`, `has no method "PerftDivide"`},
		{"a service that does not exist", `"service": "damone.v1.RulesService", "method": "Perft"`, `"service": "damone.RulesService", "method": "Perft"`, `no service "damone.RulesService"`},
		{"a method forgotten", `,
        { "service": "damone.v1.RulesService", "method": "ValidateGame" }`, "", "ValidateGame is unary and NO_SIDE_EFFECTS but has no retry policy"},
		{"a whole service", `{ "service": "damone.v1.RulesService", "method": "Perft" }`, `{ "service": "damone.v1.AnalysisService" }`, "names a whole service"},
		{"misspelt field", `"retryableStatusCodes"`, `"retryableStatuscodes"`, "strict decode"},
		{"wrong case", `"maxAttempts"`, `"MaxAttempts"`, "strict decode"},
		{"unknown field", `"backoffMultiplier": 2,`, `"backoffMultiplier": 2, "jitter": 0.2,`, "strict decode"},
		{"pick_first", `"round_robin"`, `"pick_first"`, "want round_robin"},
		{"no balancing", `"loadBalancingConfig": [{ "round_robin": {} }],`, "", "no loadBalancingConfig"},
		{"unknown policy", `"round_robin"`, `"round_robbin"`, "grpc-go's parser refuses it"},
		{"retrying answers", `["UNAVAILABLE"]`, `["UNAVAILABLE", "INVALID_ARGUMENT"]`, "want [UNAVAILABLE]"},
		{"one attempt", `"maxAttempts": 4`, `"maxAttempts": 1`, "grpc-go's parser refuses it"},
		{"too many attempts", `"maxAttempts": 4`, `"maxAttempts": 9`, "maxAttempts 9"},
		{"backoff in minutes", `"maxBackoff": "1s"`, `"maxBackoff": "60s"`, "at most 10s"},
		{"no throttling", `,
  "retryThrottling": { "maxTokens": 100, "tokenRatio": 0.1 }`, "", "no retryThrottling"},
		{"not JSON", `"methodConfig": [`, `"methodConfig": [[`, "grpc-go's parser refuses it"},
	} {
		t.Run(m.name, func(t *testing.T) {
			if !strings.Contains(js, m.old) {
				t.Fatalf("grpc-service-config.json does not contain %q: update this mutation", m.old)
			}
			var report []string
			for _, err := range checkServiceConfig([]byte(strings.Replace(js, m.old, m.new, 1))) {
				report = append(report, err.Error())
			}
			if all := strings.Join(report, "\n"); !strings.Contains(all, m.want) {
				t.Errorf("mistake not caught: want a failure containing %q, got:\n%s", m.want, all)
			}
		})
	}
}
