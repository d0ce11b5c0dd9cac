// What an API name is, for the Translator (TranslatorImpl.h).
#include "TranslatorImpl.h"

namespace pallas::analysis::rewrite {

// "jax._src.lib.mlir.dialects.memref.store" -> {"memref", "store"}.
std::pair<std::string, std::string> dialectOp(llvm::StringRef api) {
  size_t i = api.find("dialects.");
  if (i == llvm::StringRef::npos)
    return {};
  llvm::StringRef rest = api.substr(i + 9);
  auto [d, op] = rest.split('.');
  // `dialects.memref_dialect.store` spellings do not occur; keep the split.
  return {d.str(), op.str()};
}

// The part of a Mosaic GPU API after its module: "mgpu.FragmentedArray.splat"
// and "jax.experimental.mosaic.gpu.fragmented_array.FragmentedArray.splat"
// both give "FragmentedArray.splat"; "" for other APIs.
std::string mgpuName(llvm::StringRef api) {
  for (llvm::StringRef prefix :
       {"mgpu.", "jax.experimental.mosaic.gpu.", "jax._src.lib.mosaic_gpu."}) {
    if (!api.starts_with(prefix))
      continue;
    llvm::StringRef rest = api.drop_front(prefix.size());
    rest.consume_front("fragmented_array.");
    rest.consume_front("core.");
    return rest.str();
  }
  return "";
}

// "jax._src.lib.mlir.ir.F32Type.get" -> "F32Type.get".
std::string irName(llvm::StringRef api) {
  for (llvm::StringRef marker : {"mlir.ir.", "jaxlib.mlir.ir."}) {
    size_t i = api.find(marker);
    if (i != llvm::StringRef::npos)
      return api.substr(i + marker.size()).str();
  }
  if (api.starts_with("ir."))
    return api.drop_front(3).str();
  return "";
}

bool isJnpOrLax(llvm::StringRef api) {
  return api.starts_with("jnp.") || api.starts_with("lax.") || api.starts_with("jax.numpy.") ||
         api.starts_with("jax.lax.") || api.starts_with("builtins.");
}

} // namespace pallas::analysis::rewrite
