{{- define "placed.sidecar" }}
- name: metrics
  image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
{{- end }}
