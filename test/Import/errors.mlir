// User errors are one error line (plus one line per unsupported node) and exit 1.
// RUN: %python %S/Inputs/make_models.py unsupported %t.unsupported.onnx
// RUN: not lamina-import %t.unsupported.onnx 2>&1 | FileCheck %s --check-prefix=LIST
// LIST: lamina-import: error: {{.*}}.unsupported.onnx: cannot import the model (3 problems):
// LIST-NEXT: node 'unique' (Unique): operator not supported
// LIST-NEXT: node 'bilinear' (Resize): coordinate_transformation_mode 'tf_crop_and_resize' is not supported in linear and cubic modes
// LIST-NEXT: node 'custom' (Custom): operator domain 'com.example' is not supported
// LIST-NOT: after_unique

// RUN: %python %S/Inputs/make_models.py dynamic %t.dynamic.onnx
// RUN: not lamina-import %t.dynamic.onnx 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: lamina-import: error: {{.*}}.dynamic.onnx: input 'x' has dynamic dimension 0 ('batch'); fix it with --input-shape x=1x3
// RUN: lamina-import %t.dynamic.onnx --input-shape x=5x3 | FileCheck %s --check-prefix=FIXED
// FIXED: "graph.placeholder"() {name = "x"} : () -> tensor<5x3xf32>

// RUN: not lamina-import %t.missing.onnx 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: lamina-import: error: {{.*}}.missing.onnx: no such file

// RUN: not lamina-import %s 2>&1 | FileCheck %s --check-prefix=NOT-ONNX
// NOT-ONNX: lamina-import: error: {{.*}}errors.mlir: not a valid ONNX model
