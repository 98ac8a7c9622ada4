package e2e

// kwokConfig is what kwok does in place of kubelets and a container
// runtime. Nothing runs in a pod here; kwok only moves pod status along:
//
//   - node-ready: a fake node (annotation kwok.x-k8s.io/node=fake)
//     becomes Ready once. No heartbeats follow, so the environment runs
//     kube-controller-manager without the node lifecycle controller.
//   - pod-start: a pod bound to a fake node becomes Running and Ready,
//     unless it belongs to a simulated app (label platc.io/e2e-app) or
//     a process plays it (process-pod-start). The
//     workflow step pods start this way; what runs "in" them is the step
//     runner's business (steps.go).
//   - app-pod-start: a simulated app's pod becomes Running and Ready once
//     the environment has released it (annotation platc.io/e2e-start),
//     after the delay in platc.io/e2e-ready-after (the app's expected
//     duration, scaled). An app told to fail is never released, so its
//     Deployment misses its progress deadline and turns Degraded.
//   - process-pod-start: a pod of the charts whose container is a real
//     process here (by its upstream labels, processOf) becomes Running and
//     Ready once the process kubelet (kubelet.go) has started the process
//     and released the pod (annotation platc.io/e2e-start), as a kubelet
//     reports a container ready once it runs.
//   - job-pod-complete: a running pod owned by a Job (a hook) succeeds.
//   - pod-delete: a pod being deleted, with no finalizers left, goes.
//
// kwok also serves the kubelet API on loopback: a port-forward to a pod
// goes where a ClusterPortForward sends it (argo.go sends the ports of
// Argo CD's pods to its processes).
const kwokConfig = `apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  cidr: 10.244.0.0/16
  # The fake nodes' kubelet is kwok's own server on loopback: the API
  # server reaches it there for port-forwards (ClusterPortForward).
  nodeIP: 127.0.0.1
  enableDebuggingHandlers: true
  podPlayStageParallelism: 16
  nodePlayStageParallelism: 4
  podsOnNodeSyncParallelism: 4
  nodeLeaseParallelism: 4
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ['True']
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
        message: kwok plays this node's kubelet
        reason: KubeletReady
        status: "True"
        type: Ready
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
        message: ""
        reason: ""
        status: "False"
        type: MemoryPressure
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
        message: ""
        reason: ""
        status: "False"
        type: DiskPressure
      addresses:
      - address: {{ NodeIP | Quote }}
        type: InternalIP
      - address: {{ .metadata.name | Quote }}
        type: Hostname
      daemonEndpoints:
        kubeletEndpoint:
          Port: {{ NodePort }}
      nodeInfo:
        architecture: amd64
        operatingSystem: linux
        kubeletVersion: kwok
        containerRuntimeVersion: kwok
      phase: Running
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-start
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: ['Pending']
    - key: '.metadata.labels["platc.io/e2e-app"]'
      operator: DoesNotExist
    - key: ` + processKey + `
      operator: NotIn
      values: ` + processValues + `
  delay:
    durationMilliseconds: 100
  next:
    statusTemplate: ` + podRunning + `
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: process-pod-start
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: ['Pending']
    - key: ` + processKey + `
      operator: In
      values: ` + processValues + `
    - key: '.metadata.annotations["platc.io/e2e-start"]'
      operator: Exists
  delay:
    durationMilliseconds: 100
  next:
    statusTemplate: ` + podRunning + `
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: app-pod-start
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: ['Pending']
    - key: '.metadata.labels["platc.io/e2e-app"]'
      operator: Exists
    - key: '.metadata.annotations["platc.io/e2e-start"]'
      operator: Exists
  delay:
    durationMilliseconds: 100
    durationFrom:
      expressionFrom: '.metadata.annotations["platc.io/e2e-ready-after"]'
  next:
    statusTemplate: ` + podRunning + `
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: job-pod-complete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: ['Running']
    - key: '.metadata.ownerReferences.[].kind'
      operator: In
      values: ['Job']
  delay:
    durationMilliseconds: 500
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $root := . }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: PodCompleted
        type: Ready
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          terminated:
            exitCode: 0
            finishedAt: {{ $now | Quote }}
            reason: Completed
            startedAt: {{ $now | Quote }}
      {{ end }}
      phase: Succeeded
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: Exists
    - key: '.metadata.finalizers'
      operator: DoesNotExist
  delay:
    durationMilliseconds: 100
  next:
    delete: true
`

// podRunning is the status of a started pod: init containers done, every
// container running and ready.
const podRunning = `|
      {{ $now := Now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: ContainersReady
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: PodScheduled
      {{ if .spec.initContainers }}
      initContainerStatuses:
      {{ range .spec.initContainers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        restartCount: 0
        state:
          terminated:
            exitCode: 0
            finishedAt: {{ $now | Quote }}
            reason: Completed
            startedAt: {{ $now | Quote }}
      {{ end }}
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        restartCount: 0
        started: true
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      hostIP: {{ NodeIP | Quote }}
      podIP: {{ PodIP | Quote }}
      phase: Running
      startTime: {{ $now | Quote }}`
