#!/bin/sh
# Runs once before the packages build, with the store at the mount point
# (rendered with tera: {{ env.mount }} etc., see docs/views-and-images.md#hooks).
set -eu
mkdir -p "{{ env.config }}"
echo "stack {{ env.name }} for {{ env.mount }}" > "{{ env.config }}/site.txt"
