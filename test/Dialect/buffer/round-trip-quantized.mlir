// RUN: lamina-opt %s | lamina-opt | FileCheck %s

// buffer.quantize and buffer.dequantize, derived from graph.quantize and graph.dequantize: a quantized
// buffer is a memref of its stored integers with the !quant.uniform type in its memory space.

// CHECK-LABEL: func.func @quantized()
func.func @quantized() {
  %0 = "buffer.weight"() {mutable = false, name = "x", offset = -1 : i64, public = true} : () -> memref<4xf32>
  %1 = "buffer.weight"() {mutable = true, name = "y", offset = -1 : i64, public = true} : () -> memref<4xf32>
  %2 = "buffer.alloc"() {name = "q", offset = -1 : i64} : () -> memref<4xi8, {quant = !quant.uniform<i8:f32, 0.5:-3>}>
  // CHECK: "buffer.quantize"(%2, %0) : (memref<4xi8, {quant = !quant.uniform<i8:f32, 5.000000e-01:-3>}>, memref<4xf32>) -> ()
  "buffer.quantize"(%2, %0) : (memref<4xi8, {quant = !quant.uniform<i8:f32, 0.5:-3>}>, memref<4xf32>) -> ()
  // CHECK: "buffer.dequantize"(%1, %2) : (memref<4xf32>, memref<4xi8, {quant = !quant.uniform<i8:f32, 5.000000e-01:-3>}>) -> ()
  "buffer.dequantize"(%1, %2) : (memref<4xf32>, memref<4xi8, {quant = !quant.uniform<i8:f32, 0.5:-3>}>) -> ()
  "buffer.dealloc"(%2) : (memref<4xi8, {quant = !quant.uniform<i8:f32, 0.5:-3>}>) -> ()
  return
}
