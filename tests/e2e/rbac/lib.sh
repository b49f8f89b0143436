# SPDX-License-Identifier: Apache-2.0
# What the RBAC e2e scripts share, on top of ../lib/harness.sh: the scenario with
# packaging/rbac's roles and the users of make_scenario.py, served by fakekube, and running the
# plugin as one of those users. Needs $scenario, $rbac, $fakekube and $gpuslice.
# shellcheck shell=bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.sh"

rbac_start() {
  python3 "$(dirname "${BASH_SOURCE[0]}")/make_scenario.py" "$scenario" "$rbac" "$work/scenario.yaml" || exit 1
  start_fakekube "$work/scenario.yaml"
}
as_user() { # as_user NAME ARGS...: the admin kubeconfig with NAME's token
  local user=$1; shift
  NO_COLOR=1 KUBECONFIG=$work/kubeconfig "$gpuslice" --token "t-$user" "$@"
}
