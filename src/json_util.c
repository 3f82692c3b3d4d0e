/* json_util.c: see json_util.h. */
#include "json_util.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

json_t *gv_json_num(double x)
{
    if (isnan(x)) return json_string("nan");
    if (isinf(x)) return json_string(x > 0 ? "inf" : "-inf");
    return json_real(x);
}

json_t *gv_json_device(const gk_device_info *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(d->name));
    json_object_set_new(o, "uuid", json_string(d->uuid));
    json_object_set_new(o, "cc_major", json_integer(d->cc_major));
    json_object_set_new(o, "cc_minor", json_integer(d->cc_minor));
    json_object_set_new(o, "sm_count", json_integer(d->sm_count));
    json_object_set_new(o, "sm_clock_mhz", json_integer(d->sm_clock_mhz));
    json_object_set_new(o, "mem_clock_mhz", json_integer(d->mem_clock_mhz));
    json_object_set_new(o, "mem_bus_bits", json_integer(d->mem_bus_bits));
    json_object_set_new(o, "mem_total_bytes", json_integer(d->mem_total_bytes));
    json_object_set_new(o, "mem_free_bytes", json_integer(d->mem_free_bytes));
    json_object_set_new(o, "l2_bytes", json_integer(d->l2_bytes));
    json_object_set_new(o, "driver_version", json_integer(d->driver_version));
    json_object_set_new(o, "runtime_version", json_integer(d->runtime_version));
    json_object_set_new(o, "cublas_version", json_integer(d->cublas_version));
    json_object_set_new(o, "ecc", json_boolean(d->ecc_enabled));
    return o;
}

json_t *gv_json_build(void)
{
#ifdef GV_HAVE_CUDA
    return json_pack("{s:b, s:s}", "cuda", 1, "cuda_arch", GV_CUDA_ARCH);
#else
    return json_pack("{s:b, s:n}", "cuda", 0, "cuda_arch");
#endif
}

json_t *gv_json_host(int oracle_threads)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    return json_pack("{s:s, s:i}", "hostname", host, "oracle_threads", oracle_threads);
}

const char *gv_json_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    return buf;
}
