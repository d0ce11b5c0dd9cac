// Every pass of analysis/passes/Passes.td is registered with pallas-opt
// (tablegen'd registerPallasPasses) with its options.
// RUN: pallas-opt --help | FileCheck %s
// CHECK-DAG: --pallas-discharge
// CHECK-DAG: --pallas-hardware
// CHECK-DAG: --pallas-path-matrix
// CHECK-DAG: --gpu-cc=
// CHECK-DAG: --assume-path=
// CHECK-DAG: --knowledge=
