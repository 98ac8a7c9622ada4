{{- define "postgres-operator.labels" -}}
app.kubernetes.io/name: postgres-operator
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
