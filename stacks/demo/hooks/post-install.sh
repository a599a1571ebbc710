#!/bin/sh
# Runs after views, modules and meta exist, before the image is packed.
set -eu
ls "{{ env.mount }}/env" > "{{ env.config }}/views.txt"
