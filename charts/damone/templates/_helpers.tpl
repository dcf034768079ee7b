{{/*
The objects are named as k8s/base names them (damone, damone-rules,
damone-games...), whatever the release is called: one release per
namespace.
*/}}

{{/* Labels of every object of a component (rules, games). */}}
{{- define "damone.labels" -}}
app.kubernetes.io/name: damone
app.kubernetes.io/component: {{ . }}
{{- end -}}

{{/*
The ConfigMap's data as JSON: .Values.config as strings (a number as its
integer: values arrive as float64, which would print 1048576 as
1.048576e+06), and the DAMONE_*_ADDR of a port other than the default.
*/}}
{{- define "damone.configData" -}}
{{- $d := dict -}}
{{- range $k, $v := .Values.config -}}
{{- if or (kindIs "float64" $v) (kindIs "int64" $v) (kindIs "int" $v) -}}
{{- $_ := set $d $k (printf "%d" (int64 $v)) -}}
{{- else -}}
{{- $_ := set $d $k (toString $v) -}}
{{- end -}}
{{- end -}}
{{- $defaults := dict "grpc" 9090 "http" 8080 "metrics" 9102 -}}
{{- range $name, $default := $defaults -}}
{{- $port := int (get $.Values.ports $name) -}}
{{- if ne $port $default -}}
{{- $_ := set $d (printf "DAMONE_%s_ADDR" (upper $name)) (printf ":%d" $port) -}}
{{- end -}}
{{- end -}}
{{- toJson $d -}}
{{- end -}}

{{/*
The ConfigMap's name: damone-<hash>, the hash as kustomize's
configMapGenerator makes it (the first 10 hex digits of the SHA-256 of
{"data":...,"kind":"ConfigMap","name":""}, with 0 1 3 a e spelled g h k
m t; kustomize v0.21's hasher looks the name up under a key it does not
find, hence ""), so a change of settings rolls the pods and the name is
the overlays' own.
*/}}
{{- define "damone.configName" -}}
{{- $data := include "damone.configData" . | fromJson -}}
{{- $h := dict "data" $data "kind" "ConfigMap" "name" "" | toJson | sha256sum | trunc 10 -}}
damone-{{ $h | replace "0" "g" | replace "1" "h" | replace "3" "k" | replace "a" "m" | replace "e" "t" }}
{{- end -}}

{{/* The container image: repository:tag, the tag defaulting to appVersion. */}}
{{- define "damone.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* A gRPC probe of the health service name given, on the gRPC port. */}}
{{- define "damone.grpcProbe" -}}
grpc:
  port: {{ int .port }}
  service: {{ .service }}
{{- end -}}
