{{- define "common.labels" -}}
app: {{ .Values.name }}
chart: {{ .Chart.Name }}
{{- end -}}
{{- define "common.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .Values.name }}
  labels: {{- include "common.labels" . | nindent 4 }}
spec:
  ports:
  {{- range .Values.ports }}
    - port: {{ . }}
      name: p{{ . }}
  {{- end }}
{{- end -}}
