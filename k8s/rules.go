package k8s

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// PrometheusRuleFile is the PrometheusRule that holds damone's recording
// rules and alerts, relative to the folder of base/ and overlays/. It is
// the only copy of the rules: RulesFile derives the plain Prometheus form.
const PrometheusRuleFile = "base/prometheusrule.yaml"

// RulesFile reads dir/base/prometheusrule.yaml and returns its spec.groups
// as a Prometheus rules file (a YAML document whose one key is groups), as
// `prometheus --config.file` (rule_files) and `promtool check rules` and
// `promtool test rules` read it. Errors: the file is unreadable, is not
// one PrometheusRule, or has no spec.groups list.
func RulesFile(dir string) ([]byte, error) {
	path := filepath.Join(dir, PrometheusRuleFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var obj struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   any    `json:"metadata"`
		Spec       struct {
			Groups []any `json:"groups"`
		} `json:"spec"`
	}
	// Strict: a second document or a misplaced field is a mistake here.
	if err := yaml.UnmarshalStrict(b, &obj, yaml.DisallowUnknownFields); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if obj.APIVersion != "monitoring.coreos.com/v1" || obj.Kind != "PrometheusRule" {
		return nil, fmt.Errorf("%s: %s %s, want monitoring.coreos.com/v1 PrometheusRule", path, obj.APIVersion, obj.Kind)
	}
	if len(obj.Spec.Groups) == 0 {
		return nil, fmt.Errorf("%s: spec.groups is empty", path)
	}
	out, err := yaml.Marshal(map[string]any{"groups": obj.Spec.Groups})
	if err != nil {
		return nil, err
	}
	header := "# Generated from k8s/" + PrometheusRuleFile + " (its spec.groups) by k8s.RulesFile: edit that file, not this one.\n"
	return append([]byte(header), out...), nil
}
