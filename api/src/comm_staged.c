/* The staged engine (comm_engine.h). Being written: until it lands the engine reports itself unavailable, with
 * that reason, and no communicator can use it. */
#include "comm_engine.h"

#include <stdio.h>

static hcl_status load(hcl_comm_engine_info *info) {
    snprintf(info->reason, sizeof info->reason, "the staged engine is not in this build yet");
    return HCL_ERROR_UNSUPPORTED;
}

static hcl_status serves(const hcl__device *dev) {
    (void)dev;
    return hcl__set_message(HCL_ERROR_UNSUPPORTED, "the staged engine is not in this build yet");
}

static hcl_status run(hcl__comm *comm, const hcl__coll *op) {
    (void)comm, (void)op;
    return hcl__set_message(HCL_ERROR_UNSUPPORTED, "the staged engine is not in this build yet");
}

static void destroy(hcl__comm *comm) { (void)comm; }

const hcl__comm_engine hcl__comm_staged = {
    .name = "staged", .backends = "any", .has_id = 0, .load = load, .serves = serves, .destroy = destroy, .run = run};
