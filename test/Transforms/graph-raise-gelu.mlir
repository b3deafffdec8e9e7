// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-raise-gelu)' | FileCheck %s
// RUN: lamina-opt %s --split-input-file --pass-pipeline='builtin.module(graph-raise-gelu)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// PyTorch's GELU before opset 20, as imported (scalar constants broadcast):
// (x * (erf(x / 1.4142135) + 1)) * 0.5 becomes one gelu at the fused
// location of the five ops; every op of the pattern goes.

// CHECK-LABEL: func.func @erf_form()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.gelu"(%0) {approximate = "none"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
// CHECK-NEXT:    return
// LOC-LABEL: func.func @erf_form()
// LOC:         "graph.gelu"{{.*}} loc([[FUSED:#loc[0-9]*]])
// LOC-DAG:     [[HALF:#loc[0-9]*]] = loc("half")
// LOC-DAG:     [[MUL:#loc[0-9]*]] = loc("mul")
// LOC-DAG:     [[ADD:#loc[0-9]*]] = loc("add")
// LOC-DAG:     [[ERF:#loc[0-9]*]] = loc("erf")
// LOC-DAG:     [[DIV:#loc[0-9]*]] = loc("div")
// LOC-DAG:     [[FUSED]] = loc(fused[[[HALF]], [[MUL]], [[ADD]], [[ERF]], [[DIV]]])
func.func @erf_form() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %sqrt2 = "graph.constant"() {value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %sqrt2b = "graph.broadcast"(%sqrt2) : (tensor<f32>) -> tensor<2x3xf32>
  %scaled = "graph.div"(%x, %sqrt2b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("div")
  %erf = "graph.erf"(%scaled) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("erf")
  %one = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2x3xf32>
  %one_plus = "graph.add"(%erf, %one) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("add")
  %product = "graph.mul"(%x, %one_plus) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("mul")
  %half = "graph.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %halfb = "graph.broadcast"(%half) : (tensor<f32>) -> tensor<2x3xf32>
  %y = "graph.mul"(%product, %halfb) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("half")
  "graph.save"(%y) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// Hugging Face's gelu_new: 0.5 * x * (1 + tanh(0.7978846 * (x + 0.044715 * x^3)))
// with x^3 = pow(x, 3): the tanh approximation.

// CHECK-LABEL: func.func @tanh_form()
// CHECK-NEXT:    %0 = "graph.placeholder"() {name = "x"}
// CHECK-NEXT:    %1 = "graph.gelu"(%0) {approximate = "tanh"}
// CHECK-NEXT:    "graph.save"(%1) {name = "y"}
// CHECK-NEXT:    return
func.func @tanh_form() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %half = "graph.splat"() {value = 0.5 : f32} : () -> tensor<2x3xf32>
  %half_x = "graph.mul"(%half, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %three = "graph.splat"() {value = 3.0 : f32} : () -> tensor<2x3xf32>
  %cube = "graph.pow"(%x, %three) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %kappa = "graph.splat"() {value = 0.044715 : f32} : () -> tensor<2x3xf32>
  %kappa_cube = "graph.mul"(%kappa, %cube) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %inner = "graph.add"(%x, %kappa_cube) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %beta = "graph.splat"() {value = 0.797884583 : f32} : () -> tensor<2x3xf32>
  %argument = "graph.mul"(%beta, %inner) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %tanh = "graph.tanh"(%argument) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %one = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2x3xf32>
  %one_plus = "graph.add"(%one, %tanh) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = "graph.mul"(%half_x, %one_plus) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// An almost-GELU: x / 1.5 instead of x / sqrt(2). Nothing is raised.

// CHECK-LABEL: func.func @wrong_constant()
// CHECK-NOT:     graph.gelu
// CHECK:         "graph.erf"
// CHECK-NOT:     graph.gelu
func.func @wrong_constant() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %c = "graph.splat"() {value = 1.5 : f32} : () -> tensor<2x3xf32>
  %scaled = "graph.div"(%x, %c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %erf = "graph.erf"(%scaled) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %one = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2x3xf32>
  %one_plus = "graph.add"(%erf, %one) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %product = "graph.mul"(%x, %one_plus) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %half = "graph.splat"() {value = 0.5 : f32} : () -> tensor<2x3xf32>
  %y = "graph.mul"(%product, %half) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// The erf's result is also saved, so it is not interior to the pattern;
// and a product whose erf reads another value than the one multiplied.

// CHECK-LABEL: func.func @not_private()
// CHECK-NOT:     graph.gelu
// CHECK-COUNT-2: "graph.erf"
// CHECK-NOT:     graph.gelu
func.func @not_private() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %w = "graph.placeholder"() {name = "w"} : () -> tensor<2x3xf32>
  %c = "graph.splat"() {value = 0.707106769 : f32} : () -> tensor<2x3xf32>
  %one = "graph.splat"() {value = 1.0 : f32} : () -> tensor<2x3xf32>
  %half = "graph.splat"() {value = 0.5 : f32} : () -> tensor<2x3xf32>
  %scaled = "graph.mul"(%x, %c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %erf = "graph.erf"(%scaled) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %one_plus = "graph.add"(%erf, %one) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %product = "graph.mul"(%x, %one_plus) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = "graph.mul"(%product, %half) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%y) {name = "y"} : (tensor<2x3xf32>) -> ()
  "graph.save"(%erf) {name = "erf"} : (tensor<2x3xf32>) -> ()
  %scaled_w = "graph.mul"(%w, %c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %erf_w = "graph.erf"(%scaled_w) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %one_plus_w = "graph.add"(%erf_w, %one) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %product_w = "graph.mul"(%x, %one_plus_w) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = "graph.mul"(%product_w, %half) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%z) {name = "z"} : (tensor<2x3xf32>) -> ()
  return
}
