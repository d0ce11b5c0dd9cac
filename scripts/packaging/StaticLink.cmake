# Shared or static LLVM/MLIR, chosen per executable.
#
# Development builds link libMLIR.so/libLLVM.so (fast links). The wheel's
# binary must run where no LLVM is installed and start without the dynamic
# loader relocating libLLVM, so it links the static archives that the same
# Debian packages ship (llvm-22-dev, libmlir-22-dev), libstdc++ and libgcc
# statically, and keeps only glibc dynamic. (The tree-sitter runtime is
# always a static library compiled with the project: CMakeLists.txt.)
#
# The choice is made at link time from a property of the executable being
# linked ($<TARGET_PROPERTY:...> without a target name means the target at the
# head of the link), so both kinds come from the same compiled objects: the
# static pallas-lsp is one more link in the ordinary build tree, not a second
# build. Included from the top-level CMakeLists.txt after find_package().

# Every static archive of LLVM and MLIR, in one linker group: the linker takes
# only the objects the program references, so new uses of MLIR need no list
# to be kept up to date here.
file(GLOB _pallas_mlir_archives "${LLVM_LIBRARY_DIR}/libMLIR*.a")
file(GLOB _pallas_llvm_archives "${LLVM_LIBRARY_DIR}/libLLVM*.a")

set(_pallas_static "$<OR:$<BOOL:${PALLAS_LSP_STATIC}>,$<BOOL:$<TARGET_PROPERTY:PALLAS_LSP_STATIC_LINK>>>")

add_library(pallas_mlir_libs INTERFACE)
if(_pallas_mlir_archives AND _pallas_llvm_archives)
  string(REPLACE ";" "," _pallas_group "${_pallas_mlir_archives};${_pallas_llvm_archives}")
  target_link_libraries(pallas_mlir_libs INTERFACE
    "$<${_pallas_static}:$<LINK_GROUP:RESCAN,${_pallas_group}>>"
    "$<$<NOT:${_pallas_static}>:MLIR;LLVM>")
  # (the archives' own needs: LLVMSupport's threads and dl come from glibc)
  target_link_libraries(pallas_mlir_libs INTERFACE "$<${_pallas_static}:Threads::Threads;${CMAKE_DL_LIBS}>")
else()
  target_link_libraries(pallas_mlir_libs INTERFACE MLIR LLVM)
  if(PALLAS_LSP_STATIC)
    message(FATAL_ERROR "PALLAS_LSP_STATIC: no libMLIR*.a/libLLVM*.a in ${LLVM_LIBRARY_DIR}")
  endif()
endif()

set(PALLAS_GLIBC_COMPAT_SOURCE "${CMAKE_CURRENT_LIST_DIR}/glibc_compat.c")

# Marks an executable as self-contained: static archives (above), static
# libstdc++/libgcc, unused sections dropped, symbols stripped, and no glibc
# symbol newer than 2.35 (glibc_compat.c).
function(pallas_static_executable target)
  set_target_properties(${target} PROPERTIES PALLAS_LSP_STATIC_LINK ON)
  target_sources(${target} PRIVATE "${PALLAS_GLIBC_COMPAT_SOURCE}")
  target_link_options(${target} PRIVATE
    -static-libstdc++ -static-libgcc LINKER:--gc-sections LINKER:--as-needed LINKER:--strip-all
    LINKER:--wrap=arc4random)
endfunction()
