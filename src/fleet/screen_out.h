/* screen_out.h: what `gpuval screen` hands to the machinery around a node (screen_out.c); its
 * Prometheus textfile and terminal summary are render/screen_text.h's. */
#ifndef GV_SCREEN_OUT_H
#define GV_SCREEN_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "fleet/screen_judge.h"

/* The one line a scheduler takes as the drain reason: "gpuval screen: GPU 3 (UUID) failed
 * gemm.cublas f32 tf32 (tensor-cores): digest differs from golden" (each failed GPU's first
 * failure, "; " between GPUs), or "gpuval screen: prolog/1 passed on 8 GPUs in 31.2 s". */
void gv_screen_drain_line(const gv_screen_verdict *v, char *buf, size_t len);

/* The Kubernetes node condition of v: {"type": "GpuvalScreen", "status": "True" when a GPU
 * failed (a problem condition, as node-problem-detector's), "False" when every GPU passed,
 * "Unknown" when a run was lost, "reason", "message" (the drain line), "lastProbeTime",
 * "lastTransitionTime"}. */
json_t *gv_screen_k8s_condition(const gv_screen_verdict *v);

/* The node's screen document (gpuval-screen/1): tier, exit code, drain line, each GPU with its
 * judgements and failures, the notes. run_files[i]: GPU i's run document file, or NULL. */
json_t *gv_screen_doc(const gv_screen_verdict *v, const char *const *run_files);

#endif
