/* A stand-in for libcuda.so.1, for testing the probe's success paths on
 * machines without a GPU (the only mock in these tests: there is no GPU).
 * Configured by environment:
 *   FAKE_CUDA_DEVICES   "NAME@MAJOR.MINOR@GIB;..."  (empty or unset: none)
 *   FAKE_CUDA_INIT_ERROR  a CUresult for cuInit to return (e.g. 100, 999)
 * Declared by hand (not via cuda.h) so it is a real separate library, but with
 * cuda.h's type names: UBSan's -fsanitize=function compares the caller's
 * function type (from cuda.h) with the callee's, enum tags included. */
#include <stdlib.h>
#include <string.h>

typedef enum cudaError_enum { FAKE_CUDA_SUCCESS = 0 } CUresult;
typedef int CUdevice;
typedef enum CUdevice_attribute_enum { FAKE_CUDA_ATTRIBUTE = 0 } CUdevice_attribute;
enum { kMajor = 75, kMinor = 76 }; /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_* */

static int parse(int index, char* name, int len, int* major, int* minor, size_t* bytes) {
  const char* spec = getenv("FAKE_CUDA_DEVICES");
  if (spec == NULL) return 0;
  char copy[1024];
  strncpy(copy, spec, sizeof copy - 1);
  copy[sizeof copy - 1] = 0;
  char* save = NULL;
  int i = 0;
  for (char* item = strtok_r(copy, ";", &save); item; item = strtok_r(NULL, ";", &save), ++i) {
    if (i != index) continue;
    char* at1 = strchr(item, '@');
    if (!at1) return 0;
    *at1 = 0;
    char* at2 = strchr(at1 + 1, '@');
    if (!at2) return 0;
    *at2 = 0;
    if (name) { strncpy(name, item, (size_t)len - 1); name[len - 1] = 0; }
    if (major) *major = atoi(at1 + 1);
    if (minor) { const char* dot = strchr(at1 + 1, '.'); *minor = dot ? atoi(dot + 1) : 0; }
    if (bytes) *bytes = (size_t)atoll(at2 + 1) << 30;
    return 1;
  }
  return 0;
}

static int count(void) {
  int n = 0;
  while (parse(n, NULL, 0, NULL, NULL, NULL)) ++n;
  return n;
}

CUresult cuInit(unsigned flags) {
  (void)flags;
  const char* error = getenv("FAKE_CUDA_INIT_ERROR");
  if (error) return (CUresult)atoi(error);
  return (CUresult)(count() == 0 ? 100 /* CUDA_ERROR_NO_DEVICE */ : 0);
}
CUresult cuDriverGetVersion(int* version) { *version = 12080; return FAKE_CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int* n) { *n = count(); return FAKE_CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (ordinal >= count()) return (CUresult)101; /* CUDA_ERROR_INVALID_DEVICE */
  *device = ordinal;
  return FAKE_CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice device) {
  return (CUresult)(parse(device, name, len, NULL, NULL, NULL) ? 0 : 101);
}
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  int major = 0, minor = 0;
  if (!parse(device, NULL, 0, &major, &minor, NULL)) return (CUresult)101;
  if ((int)attribute == kMajor) { *value = major; return FAKE_CUDA_SUCCESS; }
  if ((int)attribute == kMinor) { *value = minor; return FAKE_CUDA_SUCCESS; }
  return (CUresult)1;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  return (CUresult)(parse(device, NULL, 0, NULL, NULL, bytes) ? 0 : 101);
}
CUresult cuGetErrorName(CUresult error, const char** name) {
  *name = (int)error == 100 ? "CUDA_ERROR_NO_DEVICE" : (int)error == 999 ? "CUDA_ERROR_UNKNOWN" : "CUDA_ERROR_OTHER";
  return FAKE_CUDA_SUCCESS;
}
