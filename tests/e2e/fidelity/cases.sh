# SPDX-License-Identifier: Apache-2.0
# The fidelity cases. Each case_<name> runs against a fresh fakekube serving scenario.yaml;
# kc runs kubectl as admin, as_viewer as the read-only viewer. Every mutation is checked by
# a second read.

case_get_nodes() {
  local out
  out=$(kc get nodes 2>&1)
  check_contains "get nodes header" "$out" "NAME"
  check_contains "get nodes header" "$out" "STATUS"
  check "get nodes names" "$(kc get nodes -o name 2>&1 | sort | tr '\n' ' ')" \
    "node/cpu-1 node/gpu-1 node/gpu-2 "
  check_contains "gpu-1 is Ready" "$(kc get node gpu-1 2>&1)" "Ready"
}

case_get_pods_all_namespaces() {
  local out
  out=$(kc get pods -A 2>&1)
  check_contains "get pods -A header" "$out" "NAMESPACE"
  check "pods -A rows" "$(kc get pods -A --no-headers 2>&1 | awk '{print $1"/"$2}' | sort | tr '\n' ' ')" \
    "default/web-1 default/web-2 ml/infer-1 ml/infer-2 ml/infer-3 "
}

case_get_output_json_yaml() {
  local json
  json=$(kc get pods -A -o json 2>&1)
  check "-o json is a List of 5" "$(jq -r '.kind + " " + (.items | length | tostring)' <<<"$json" 2>&1)" "List 5"
  check "-o json node" "$(kc get node gpu-1 -o json | jq -r '.status.allocatable["nvidia.com/gpu"]' 2>&1)" "1"
  local yaml
  yaml=$(kc get node gpu-1 -o yaml 2>&1)
  check_contains "-o yaml name" "$yaml" "name: gpu-1"
  check_contains "-o yaml capacity" "$yaml" "nvidia.com/gpu: \"1\""
  check "jsonpath" "$(kc get node gpu-1 -o jsonpath='{.metadata.labels.node\.kubernetes\.io/instance-type}' 2>&1)" \
    "g4dn.xlarge"
}

case_get_label_selector() {
  check "-l app=web" "$(kc get pods -A -l app=web -o name 2>&1 | sort | tr '\n' ' ')" "pod/web-1 pod/web-2 "
  check "-l 'tier in (gpu)'" "$(kc get pods -n ml -l 'tier in (gpu)' -o name 2>&1 | wc -l)" "3"
  check "-l '!tier'" "$(kc get pods -A -l '!tier' -o name 2>&1 | sort | tr '\n' ' ')" "pod/web-1 pod/web-2 "
  check "-l on nodes" "$(kc get nodes -l nvidia.com/gpu.present=true -o name 2>&1 | sort | tr '\n' ' ')" \
    "node/gpu-1 node/gpu-2 "
  check_contains "selector sent to the server" "$(requests)" '"query":"labelSelector=app%3Dweb'
}

case_get_field_selector() {
  check "status.phase=Pending" "$(kc get pods -A --field-selector=status.phase=Pending -o name 2>&1)" "pod/infer-3"
  check "spec.nodeName=cpu-1" "$(kc get pods -A --field-selector=spec.nodeName=cpu-1 -o name 2>&1 | sort | tr '\n' ' ')" \
    "pod/web-1 pod/web-2 "
  # fakekube answers spec.nodeName from a pod index, as the API server's watch cache does; the
  # pages, namespace scope, other selectors and later writes must be what a scan of all pods gives.
  clear_requests
  check "spec.nodeName=cpu-1 over pages of 1" \
    "$(kc get pods -A --field-selector=spec.nodeName=cpu-1 --chunk-size=1 -o name 2>&1 | tr '\n' ' ')" \
    "pod/web-1 pod/web-2 "
  check "spec.nodeName pages followed by continue" \
    "$(requests | jq -r 'select(.path == "/api/v1/pods") | .query' | grep -c 'continue=')" "2"
  check "spec.nodeName=gpu-1 in one namespace" "$(kc get pods -n ml --field-selector=spec.nodeName=gpu-1 -o name 2>&1)" \
    "pod/infer-1"
  check "spec.nodeName=gpu-1 in another namespace" \
    "$(kc get pods -n default --field-selector=spec.nodeName=gpu-1 -o name 2>/dev/null)" ""
  check "spec.nodeName with status.phase" \
    "$(kc get pods -A --field-selector=spec.nodeName=cpu-1,status.phase!=Succeeded,status.phase!=Failed -o name 2>&1 | sort | tr '\n' ' ')" \
    "pod/web-1 pod/web-2 "
  check "unscheduled pods: spec.nodeName=" "$(kc get pods -A --field-selector=spec.nodeName= -o name 2>&1)" "pod/infer-3"
  check_contains "delete web-2" "$(kc delete pod web-2 -n default --wait=false 2>&1)" 'pod "web-2" deleted'
  check "spec.nodeName=cpu-1 after the delete" "$(kc get pods -A --field-selector=spec.nodeName=cpu-1 -o name 2>&1)" \
    "pod/web-1"
  local out status
  out=$(kc get pods -A --field-selector=spec.bogus=x 2>&1); status=$?
  check_status "unsupported field label" "$status" 1
  check_contains "unsupported field label error" "$out" 'field label not supported: spec.bogus'
}

case_get_chunk_size_paging() {
  clear_requests
  check "all pods over pages of 2" \
    "$(kc get pods -A --chunk-size=2 -o name 2>&1 | sort | tr '\n' ' ')" \
    "pod/infer-1 pod/infer-2 pod/infer-3 pod/web-1 pod/web-2 "
  local pages
  pages=$(requests | jq -r 'select(.path == "/api/v1/pods") | .query' | grep -c 'limit=2')
  check "three list requests with limit=2" "$pages" "3"
  check "continue tokens followed" \
    "$(requests | jq -r 'select(.path == "/api/v1/pods") | .query' | grep -c 'continue=')" "2"
}

case_describe_node() {
  local out
  out=$(kc describe node gpu-1 2>&1)
  check_contains "describe name" "$out" "gpu-1"
  check_contains "describe labels" "$out" "node.kubernetes.io/instance-type=g4dn.xlarge"
  check_contains "describe capacity" "$out" "nvidia.com/gpu:"
  check_contains "describe pods on the node" "$out" "infer-1"
  check_not_contains "describe shows no other node's pod" "$out" "web-1"
}

case_label() {
  check "label add" "$(kc label node gpu-1 team=ml 2>&1)" "node/gpu-1 labeled"
  check "label read back" "$(kc get node gpu-1 -o jsonpath='{.metadata.labels.team}')" "ml"
  local out status
  out=$(kc label node gpu-1 team=ops 2>&1); status=$?
  check_status "label without --overwrite" "$status" 1
  check_contains "label without --overwrite" "$out" "--overwrite is false"
  check "label overwrite" "$(kc label node gpu-1 team=ops --overwrite 2>&1)" "node/gpu-1 labeled"
  check "label overwritten" "$(kc get node gpu-1 -o jsonpath='{.metadata.labels.team}')" "ops"
  check "label remove" "$(kc label node gpu-1 team- 2>&1)" "node/gpu-1 unlabeled"
  check "label removed" "$(kc get node gpu-1 -o json | jq -r '.metadata.labels | has("team")')" "false"
  check "other labels kept" "$(kc get node gpu-1 -o jsonpath='{.metadata.labels.nvidia\.com/gpu\.present}')" "true"
}

case_annotate() {
  # kubectl 1.27 prints "annotate", later versions "annotated": only the prefix is compared.
  check_contains "annotate" "$(kc annotate pod web-1 owner=sre 2>&1)" "pod/web-1 annotate"
  check "annotation read back" "$(kc get pod web-1 -o jsonpath='{.metadata.annotations.owner}')" "sre"
  check_contains "annotate overwrite" "$(kc annotate pod web-1 owner=ml --overwrite 2>&1)" "pod/web-1 annotate"
  check "annotation overwritten" "$(kc get pod web-1 -o jsonpath='{.metadata.annotations.owner}')" "ml"
  check_contains "annotate remove" "$(kc annotate pod web-1 owner- 2>&1)" "pod/web-1 annotate"
  check "annotation removed" "$(kc get pod web-1 -o json | jq -r '.metadata.annotations.owner // "none"')" "none"
}

case_taint() {
  check "taint add" "$(kc taint nodes gpu-1 nvidia.com/gpu=present:NoSchedule 2>&1)" "node/gpu-1 tainted"
  check "taint read back" "$(kc get node gpu-1 -o json | jq -c '[.spec.taints[] | {key, value, effect}]')" \
    '[{"key":"nvidia.com/gpu","value":"present","effect":"NoSchedule"}]'
  check "taint overwrite" "$(kc taint nodes gpu-1 nvidia.com/gpu=shared:NoSchedule --overwrite 2>&1)" \
    "node/gpu-1 modified"
  check "taint overwritten" "$(kc get node gpu-1 -o json | jq -c '[.spec.taints[] | .value]')" '["shared"]'
  check "taint remove" "$(kc taint nodes gpu-1 nvidia.com/gpu:NoSchedule- 2>&1)" "node/gpu-1 untainted"
  check "taint removed" "$(kc get node gpu-1 -o json | jq -c '.spec.taints // []')" '[]'
}

case_patch_merge() {
  check "merge patch" "$(kc patch configmap settings -n ml --type merge -p '{"data":{"mode":"slow","extra":"1"}}' 2>&1)" \
    "configmap/settings patched"
  check "merge patch read back" "$(kc get configmap settings -n ml -o json | jq -c '.data')" '{"extra":"1","mode":"slow"}'
  kc patch configmap settings -n ml --type merge -p '{"data":{"extra":null}}' >/dev/null 2>&1
  check "merge patch null deletes" "$(kc get configmap settings -n ml -o json | jq -c '.data')" '{"mode":"slow"}'
  check_contains "content type" "$(requests)" '"contentType":"application/merge-patch+json"'
}

case_patch_json() {
  check "json patch" "$(kc patch configmap settings -n ml --type json \
    -p '[{"op":"add","path":"/metadata/labels","value":{"tier":"config"}},{"op":"replace","path":"/data/mode","value":"json"}]' 2>&1)" \
    "configmap/settings patched"
  check "json patch read back" "$(kc get configmap settings -n ml -o json | jq -c '[.metadata.labels.tier, .data.mode]')" \
    '["config","json"]'
  local out status
  out=$(kc patch configmap settings -n ml --type json -p '[{"op":"test","path":"/data/mode","value":"wrong"}]' 2>&1); status=$?
  check_status "failed json-patch test" "$status" 1
  check "failed test leaves the object" "$(kc get configmap settings -n ml -o jsonpath='{.data.mode}')" "json"
  check_contains "content type" "$(requests)" '"contentType":"application/json-patch+json"'
}

case_patch_strategic() {
  check "strategic patch" "$(kc patch deployment api -n ml --type strategic \
    -p '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"api:2.0"}]}}}}' 2>&1)" \
    "deployment.apps/api patched"
  check "containers merged by name" \
    "$(kc get deployment api -n ml -o json | jq -c '[.spec.template.spec.containers[] | .name + "=" + .image]')" \
    '["app=api:2.0","sidecar=envoy:1.31"]'
  check_contains "content type" "$(requests)" '"contentType":"application/strategic-merge-patch+json"'
}

case_create_from_file() {
  cat >"$case_dir/new.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: created
  namespace: ml
  labels: {origin: file}
data:
  replicas: "4"
YAML
  check "create -f" "$(kc create --validate=false -f "$case_dir/new.yaml" 2>&1)" "configmap/created created"
  check "created read back" "$(kc get configmap created -n ml -o jsonpath='{.data.replicas}/{.metadata.labels.origin}')" "4/file"
  local out status
  out=$(kc create --validate=false -f "$case_dir/new.yaml" 2>&1); status=$?
  check_status "create twice" "$status" 1
  check_contains "AlreadyExists" "$out" 'Error from server (AlreadyExists): error when creating'
  check_contains "AlreadyExists message" "$out" 'configmaps "created" already exists'
}

case_apply_server_side() {
  cat >"$case_dir/ssa.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
  namespace: ml
data:
  a: "1"
YAML
  check "apply --server-side create" "$(kc apply --validate=false --server-side -f "$case_dir/ssa.yaml" 2>&1)" "configmap/applied serverside-applied"
  sed -i 's/a: "1"/a: "2"\n  b: "3"/' "$case_dir/ssa.yaml"
  check "apply --server-side update" "$(kc apply --validate=false --server-side -f "$case_dir/ssa.yaml" 2>&1)" "configmap/applied serverside-applied"
  check "applied read back" "$(kc get configmap applied -n ml -o json | jq -c '.data')" '{"a":"2","b":"3"}'
  check "field manager recorded" \
    "$(kc get configmap applied -n ml -o json --show-managed-fields | jq -r '.metadata.managedFields[] | select(.operation == "Apply") | .manager')" \
    "kubectl"
  check_contains "apply-patch content type" "$(requests)" '"contentType":"application/apply-patch+yaml"'
  check_contains "field manager sent" "$(requests)" 'fieldManager=kubectl'
}

case_replace() {
  kc get configmap settings -n ml -o json | jq '.data.mode = "replaced"' >"$case_dir/replace.json"
  check "replace" "$(kc replace --validate=false -f "$case_dir/replace.json" 2>&1)" "configmap/settings replaced"
  check "replaced read back" "$(kc get configmap settings -n ml -o jsonpath='{.data.mode}')" "replaced"
  local out status
  out=$(kc replace --validate=false -f "$case_dir/replace.json" 2>&1); status=$?
  check_status "replace with a stale resourceVersion" "$status" 1
  check_contains "Conflict" "$out" 'Error from server (Conflict)'
  check_contains "Conflict message" "$out" 'the object has been modified; please apply your changes to the latest version and try again'
}

case_delete() {
  check "delete" "$(kc delete configmap settings -n ml 2>&1)" 'configmap "settings" deleted'
  local out status
  out=$(kc get configmap settings -n ml 2>&1); status=$?
  check_status "deleted object" "$status" 1
  check "NotFound" "$out" 'Error from server (NotFound): configmaps "settings" not found'
  check "delete pod" "$(kc delete pod web-2 --wait=false 2>&1)" 'pod "web-2" deleted'
  check "pod gone from list" "$(kc get pods -n default -o name 2>&1)" "pod/web-1"
}

case_dry_run_server() {
  clear_requests
  cat >"$case_dir/ghost.yaml" <<'YAML'
{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ghost", "namespace": "ml"}, "data": {"a": "b"}}
YAML
  check "create --dry-run=server" \
    "$(kc create --validate=false -f "$case_dir/ghost.yaml" --dry-run=server 2>&1)" \
    "configmap/ghost created (server dry run)"
  local out status
  out=$(kc get configmap ghost -n ml 2>&1); status=$?
  check_status "nothing stored" "$status" 1
  check_contains "dryRun=All sent" "$(requests | jq -r 'select(.method == "POST") | .query')" "dryRun=All"
  check "label --dry-run=server" "$(kc label node gpu-1 team=ml --dry-run=server 2>&1)" "node/gpu-1 labeled (server dry run)"
  check "label not stored" "$(kc get node gpu-1 -o json | jq -r '.metadata.labels | has("team")')" "false"
  check "delete --dry-run=server" "$(kc delete configmap settings -n ml --dry-run=server 2>&1)" \
    'configmap "settings" deleted (server dry run)'
  check "delete not done" "$(kc get configmap settings -n ml -o name 2>&1)" "configmap/settings"
  # kubectl sends a delete's dryRun inside the DeleteOptions body, the others in the query.
  check "every create and patch was a dry run" \
    "$(requests | jq -r 'select(.method == "POST" or .method == "PATCH") | .query' | grep -vc 'dryRun=All')" "0"
}

case_auth_can_i() {
  local out status
  out=$(as_viewer auth can-i list pods -n ml 2>/dev/null); status=$?
  check "viewer can list pods" "$out" "yes"
  check_status "can-i yes" "$status" 0
  # stdout only: kubectl warns on stderr that nodes are not namespaced.
  out=$(as_viewer auth can-i delete nodes 2>/dev/null); status=$?
  check "viewer cannot delete nodes" "$out" "no"
  check_status "can-i no" "$status" 1
  out=$(kc auth can-i '*' '*' 2>/dev/null); status=$?
  check "admin can do everything" "$out" "yes"
  check_contains "SelfSubjectAccessReview posted" "$(requests)" '"path":"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"'
}

case_forbidden_error() {
  local out status
  out=$(as_viewer delete node gpu-1 2>&1); status=$?
  check_status "forbidden delete" "$status" 1
  check "forbidden message" "$out" \
    'Error from server (Forbidden): nodes "gpu-1" is forbidden: User "viewer" cannot delete resource "nodes" in API group "" at the cluster scope'
  out=$(as_viewer get configmaps -n ml 2>&1); status=$?
  check_status "forbidden list" "$status" 1
  check_contains "forbidden list message" "$out" \
    'configmaps is forbidden: User "viewer" cannot list resource "configmaps" in API group "" in the namespace "ml"'
  check "node still there" "$(kc get node gpu-1 -o name 2>&1)" "node/gpu-1"
}

case_get_watch() {
  local watch_out=$case_dir/watch.out
  timeout 30 "$kubectl_bin" --kubeconfig "$case_dir/kubeconfig" --cache-dir "$case_dir/cache" \
    get configmaps -n ml --watch --output-watch-events >"$watch_out" 2>&1 &
  local watcher=$!
  if ! wait_for "$watch_out" settings 10; then
    check "watch lists the existing configmap" "$(cat "$watch_out")" "ADDED settings …"
  fi
  echo '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"arrived","namespace":"ml"}}' >"$case_dir/arrived.json"
  kc create --validate=false -f "$case_dir/arrived.json" >/dev/null 2>&1
  if wait_for "$watch_out" arrived 10; then
    check_contains "ADDED event for the new configmap" "$(grep arrived "$watch_out")" "ADDED"
  else
    check "watch shows the change" "$(cat "$watch_out")" "… ADDED arrived …"
  fi
  kc delete configmap arrived -n ml >/dev/null 2>&1
  if wait_for "$watch_out" DELETED 10; then
    check_contains "DELETED event" "$(grep DELETED "$watch_out")" "arrived"
  else
    check "watch shows the delete" "$(cat "$watch_out")" "… DELETED arrived …"
  fi
  kill "$watcher" 2>/dev/null
  wait "$watcher" 2>/dev/null
  check_contains "watch request" "$(requests | jq -r 'select(.path == "/api/v1/namespaces/ml/configmaps") | .query')" "watch=true"
}

# kubectl validates files against the server's OpenAPI unless --validate=false; fakekube's
# empty /openapi/v2 document is enough for it to go ahead.
case_client_side_validation() {
  echo '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"validated","namespace":"ml"}}' >"$case_dir/v.json"
  check "create -f with validation" "$(kc create -f "$case_dir/v.json" 2>&1)" "configmap/validated created"
  check "apply with validation" "$(kc apply --server-side -f "$case_dir/v.json" 2>&1)" "configmap/validated serverside-applied"
}

# kubectl create <generator> goes through client-go's typed clientset, which sends protobuf
# bodies for built-in types from kubectl 1.32 on (JSON before): fakekube decodes both.
case_create_generator() {
  check "create configmap" "$(kc create configmap generated -n ml --from-literal=k=v 2>&1)" "configmap/generated created"
  check "created read back" "$(kc get configmap generated -n ml -o jsonpath='{.data.k}' 2>&1)" "v"
  check "create --dry-run=server" \
    "$(kc create configmap ghost -n ml --from-literal=a=b --dry-run=server 2>&1)" "configmap/ghost created (server dry run)"
  check "dry run not stored" "$(kc get configmap ghost -n ml -o name 2>/dev/null)" ""
  local sent expected=application/json
  ((kubectl_minor >= 32)) && expected=application/vnd.kubernetes.protobuf
  sent=$(requests | jq -r 'select(.method == "POST" and .path == "/api/v1/namespaces/ml/configmaps") | .contentType' | sort -u)
  check "body media type of kubectl 1.$kubectl_minor" "${sent%%;*}" "$expected"
}

# Every `kubectl create <generator>` kind: what the server stores holds everything kubectl
# renders for the same command with --dry-run=client (client-side, no server involved), so a
# misread protobuf field number shows up as a missing or different value.
json_subset='def sub($a; $b):
  if ($a|type) == "object" then ($b|type) == "object" and all($a|keys[]; . as $k | ($b|has($k)) and sub($a[$k]; $b[$k]))
  elif ($a|type) == "array" then ($b|type) == "array" and ($a|length) == ($b|length) and all(range($a|length); . as $i | sub($a[$i]; $b[$i]))
  else $a == $b end;
sub($client | del(.metadata.creationTimestamp); $server)'

check_generator() { # check_generator <description> <generator words…> [-- command…]
  local what=$1; shift
  local args=() command=()
  while [[ $# -gt 0 && $1 != -- ]]; do args+=("$1"); shift; done
  command=("$@") # "--" and what follows it, or nothing
  local client server
  client=$(kc create "${args[@]}" --dry-run=client -o json "${command[@]}" 2>&1)
  server=$(kc create "${args[@]}" -o json "${command[@]}" 2>&1)
  if [[ $(jq -n --argjson client "$client" --argjson server "$server" "$json_subset" 2>&1) != true ]]; then
    check "$what: stored object holds the client's rendering" "$server" "$client"
  fi
}

case_create_generator_kinds() {
  printf 'line one\nline two\n' >"$case_dir/settings.txt"
  printf '\x00\x01\xff' >"$case_dir/blob.bin"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$case_dir/tls.key" -out "$case_dir/tls.crt" \
    -subj /CN=fidelity -days 1 >/dev/null 2>&1
  check_generator "configmap" configmap gen-cm -n ml --from-literal=a=b \
    --from-file=settings="$case_dir/settings.txt" --from-file=blob="$case_dir/blob.bin"
  check_generator "namespace" namespace gen-ns
  check_generator "secret generic" secret generic gen-secret -n ml --from-literal=password=s3cret --type=Opaque
  check_generator "secret docker-registry" secret docker-registry gen-pull -n ml \
    --docker-server=registry.example --docker-username=u --docker-password=p
  check_generator "secret tls" secret tls gen-tls -n ml --cert="$case_dir/tls.crt" --key="$case_dir/tls.key"
  check_generator "serviceaccount" serviceaccount gen-sa -n ml
  check_generator "deployment" deployment gen-deploy -n ml --image=registry.example/infer:1 \
    --replicas=3 --port=8080 -- /serve --gpus=1
  check_generator "job" job gen-job -n ml --image=busybox -- echo done
  check_generator "cronjob" cronjob gen-cron -n ml --image=busybox --schedule='*/5 * * * *' \
    --restart=OnFailure -- date
  check_generator "service clusterip" service clusterip gen-svc -n ml --tcp=80:8080 --tcp=443
  check_generator "service nodeport" service nodeport gen-np -n ml --tcp=80:8080 --node-port=30080
  check_generator "service loadbalancer" service loadbalancer gen-lb -n ml --tcp=5678:8080
  check_generator "service externalname" service externalname gen-ext -n ml --external-name=db.example
  check_generator "role" role gen-role -n ml --verb=get,list,watch --resource=pods,deployments.apps \
    --resource-name=infer
  check_generator "rolebinding" rolebinding gen-rb -n ml --role=gen-role --user=alice \
    --group=sre --serviceaccount=ml:gen-sa
  check_generator "clusterrole" clusterrole gen-cr --verb=get --resource=nodes --non-resource-url=/healthz
  check_generator "clusterrole aggregation" clusterrole gen-agg --aggregation-rule=rbac.example/aggregate=true
  check_generator "clusterrolebinding" clusterrolebinding gen-crb --clusterrole=gen-cr --user=bob
  check_generator "priorityclass" priorityclass gen-pc --value=1000 --description="GPU inference" \
    --preemption-policy=Never
  check_generator "quota" quota gen-quota -n ml --hard=requests.nvidia.com/gpu=4,pods=10 --scopes=NotBestEffort
  if ((kubectl_minor >= 32)); then
    check "every generator body was protobuf" \
      "$(requests | jq -r 'select(.method == "POST") | .contentType | split(";")[0]' | sort -u)" \
      application/vnd.kubernetes.protobuf
  fi
  check "secret value stored" "$(kc get secret gen-secret -n ml -o jsonpath='{.data.password}' | base64 -d)" "s3cret"
  check "binary configmap key stored" "$(kc get configmap gen-cm -n ml -o jsonpath='{.binaryData.blob}' | base64 -d | od -An -tx1 | tr -d ' \n')" "0001ff"
}

# The seed runbook by hand, as an SRE types it with the kubectl at hand (1.33 sends the ConfigMap
# as protobuf): the time-slicing ConfigMap from a file, the GPU node's label and taint, the GPU
# Deployment's toleration; each step's object reads back as written.
case_seed_runbook() {
  printf 'version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n' \
    >"$case_dir/time-slicing.yaml"
  check "create configmap --from-file" \
    "$(kc create configmap time-slicing-config -n ml --from-file=any="$case_dir/time-slicing.yaml" 2>&1)" \
    "configmap/time-slicing-config created"
  check "the config file stored byte for byte" \
    "$(kc get configmap time-slicing-config -n ml -o json | jq -j '.data.any' | cmp - "$case_dir/time-slicing.yaml" && echo same)" same
  check "label the GPU node with its config" "$(kc label node gpu-2 nvidia.com/device-plugin.config=any --overwrite 2>&1)" \
    "node/gpu-2 labeled"
  check "taint the GPU node" "$(kc taint node gpu-2 nvidia.com/gpu=true:NoSchedule 2>&1)" "node/gpu-2 tainted"
  check "patch the Deployment's tolerations" \
    "$(kc patch deployment api -n ml --type json -p '[{"op":"add","path":"/spec/template/spec/tolerations","value":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}]' 2>&1)" \
    "deployment.apps/api patched"
  check "the toleration reads back" \
    "$(kc get deployment api -n ml -o json | jq -c '[.spec.template.spec.tolerations[] | {key, operator, effect}]')" \
    '[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]'
  check "the node reads back labelled and tainted" \
    "$(kc get node gpu-2 -o json | jq -c '[.metadata.labels["nvidia.com/device-plugin.config"], [.spec.taints[] | .key + "=" + .value + ":" + .effect]]')" \
    '["any",["nvidia.com/gpu=true:NoSchedule"]]'
  if ((kubectl_minor >= 32)); then
    check "the ConfigMap went as protobuf" \
      "$(requests | jq -r 'select(.method == "POST" and .path == "/api/v1/namespaces/ml/configmaps") | .contentType | split(";")[0]')" \
      application/vnd.kubernetes.protobuf
  fi
}

# Dynamic Resource Allocation: a 1.34 server serves resource.k8s.io/v1 and kubectl reads its
# kinds through discovery alone (no compiled-in types); the fidelity scenario's 1.30 does not.
case_dra_kinds() {
  check_contains "1.30 serves no resource.k8s.io" "$(kc get deviceclasses 2>&1)" \
    "the server doesn't have a resource type \"deviceclasses\""
  stop_fakekube
  local base=$scenario
  scenario=$(mktemp "${TMPDIR:-/tmp}/fidelity-dra-XXXXXX.yaml")
  sed 's/^serverVersion: .*/serverVersion: v1.34.2/' "$base" >"$scenario"
  start_fakekube || { case_errors=$((case_errors + 1)); rm -f "$scenario"; scenario=$base; return; }
  rm -f "$scenario"
  scenario=$base
  jq '.items |= map(select(.apiVersion == "resource.k8s.io/v1"))' \
    "$here/../../fixtures/objects/dra-gpu-v1.json" >"$case_dir/dra.json"
  check "create -f the DRA kinds" "$(kc create -f "$case_dir/dra.json" 2>&1 | sort | tr '\n' ' ')" \
    "deviceclass.resource.k8s.io/gpu.nvidia.com created resourceclaim.resource.k8s.io/shared-gpu created resourceclaimtemplate.resource.k8s.io/two-gpus created resourceslice.resource.k8s.io/gpu-node-1-gpu.nvidia.com-4xk2p created "
  check "api-resources of the group" "$(kc api-resources --api-group=resource.k8s.io -o name | tr '\n' ' ')" \
    "deviceclasses.resource.k8s.io resourceclaims.resource.k8s.io resourceclaimtemplates.resource.k8s.io resourceslices.resource.k8s.io "
  check "get the four kinds" \
    "$(kc get deviceclasses,resourceslices,resourceclaims,resourceclaimtemplates -A -o name | tr '\n' ' ')" \
    "deviceclass.resource.k8s.io/gpu.nvidia.com resourceslice.resource.k8s.io/gpu-node-1-gpu.nvidia.com-4xk2p resourceclaim.resource.k8s.io/shared-gpu resourceclaimtemplate.resource.k8s.io/two-gpus "
  check "a v1 claim's exactly request reads back" \
    "$(kc get resourceclaim shared-gpu -n ml -o jsonpath='{.spec.devices.requests[0].exactly.deviceClassName}')" \
    "gpu.nvidia.com"
  check "a slice's node reads back" \
    "$(kc get resourceslices -o jsonpath='{.items[*].spec.nodeName}')" "gpu-node-1"
}
