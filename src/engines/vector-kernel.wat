;; SIMD kernels of VectorIndex (src/engines/vector.ts). Assembled by `npm run build:kernel` into vector-kernel.ts;
;; test/engines/vector.test.ts re-assembles this file and fails when the two differ.
;;
;; Every offset is a byte address in the imported memory, 16-byte aligned; `stride` (values per row) is a multiple
;; of 16, rows are zero-padded up to it, so neither function needs a scalar tail loop.
(module
  (memory (import "env" "memory") 1)

  ;; f32 dot product of the query at $q and the row at $row. Four accumulators of four lanes: independent additions
  ;; keep the adder busy instead of waiting on one running sum. Used to score exactly: the candidates left by
  ;; `dots_i8`, and `VectorIndex.score`.
  (func $dot (export "dot") (param $q i32) (param $row i32) (param $stride i32) (result f32)
    (local $end i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $end (i32.add (local.get $row) (i32.shl (local.get $stride) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $a0 (f32x4.add (local.get $a0)
          (f32x4.mul (v128.load offset=0 (local.get $row)) (v128.load offset=0 (local.get $q)))))
        (local.set $a1 (f32x4.add (local.get $a1)
          (f32x4.mul (v128.load offset=16 (local.get $row)) (v128.load offset=16 (local.get $q)))))
        (local.set $a2 (f32x4.add (local.get $a2)
          (f32x4.mul (v128.load offset=32 (local.get $row)) (v128.load offset=32 (local.get $q)))))
        (local.set $a3 (f32x4.add (local.get $a3)
          (f32x4.mul (v128.load offset=48 (local.get $row)) (v128.load offset=48 (local.get $q)))))
        (local.set $row (i32.add (local.get $row) (i32.const 64)))
        (local.set $q (i32.add (local.get $q) (i32.const 64)))
        (br $next)))
    (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
      (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))

  ;; Integer dot products of every int8 row (`$count` rows of `$stride` bytes from $rows) with the int16 query at $q,
  ;; written as i32 to $out. A quarter of the f32 rows' bytes: at 12k × 512 the f32 scan waits on memory, this one
  ;; much less. Exact in i32 as long as 127 × max|query| × stride < 2^31 (the caller scales the query to fit).
  (func (export "dots_i8") (param $q i32) (param $rows i32) (param $count i32) (param $stride i32) (param $out i32)
    (local $outEnd i32) (local $rowEnd i32) (local $qAt i32)
    (local $a0 v128) (local $a1 v128) (local $v v128)
    (local.set $outEnd (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (block $rowsDone
      (loop $nextRow
        (br_if $rowsDone (i32.ge_u (local.get $out) (local.get $outEnd)))
        (local.set $rowEnd (i32.add (local.get $rows) (local.get $stride)))
        (local.set $qAt (local.get $q))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (block $done
          (loop $next
            (br_if $done (i32.ge_u (local.get $rows) (local.get $rowEnd)))
            ;; 16 int8 values, widened to two i16x8 halves, each multiplied by 8 query values and summed in pairs.
            (local.set $v (v128.load (local.get $rows)))
            (local.set $a0 (i32x4.add (local.get $a0)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (v128.load offset=0 (local.get $qAt)))))
            (local.set $a1 (i32x4.add (local.get $a1)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (v128.load offset=16 (local.get $qAt)))))
            (local.set $rows (i32.add (local.get $rows) (i32.const 16)))
            (local.set $qAt (i32.add (local.get $qAt) (i32.const 32)))
            (br $next)))
        (local.set $a0 (i32x4.add (local.get $a0) (local.get $a1)))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $a0)) (i32x4.extract_lane 1 (local.get $a0)))
            (i32.add (i32x4.extract_lane 2 (local.get $a0)) (i32x4.extract_lane 3 (local.get $a0)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $nextRow))))

  ;; Largest |value| of the f32 row at $row: the int8 scale of the row is this / 127.
  (func (export "absmax") (param $row i32) (param $stride i32) (result f32)
    (local $end i32) (local $m v128)
    (local.set $end (i32.add (local.get $row) (i32.shl (local.get $stride) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $m (f32x4.max (local.get $m) (f32x4.abs (v128.load (local.get $row)))))
        (local.set $row (i32.add (local.get $row) (i32.const 16)))
        (br $next)))
    (f32.max
      (f32.max (f32x4.extract_lane 0 (local.get $m)) (f32x4.extract_lane 1 (local.get $m)))
      (f32.max (f32x4.extract_lane 2 (local.get $m)) (f32x4.extract_lane 3 (local.get $m)))))

  ;; Writes round(row × $inverse) as int8 to $out (|row × inverse| ≤ 127 is the caller's to ensure) and, at $norms,
  ;; two f64: ‖q × $scale‖² and ‖row − q × $scale‖², the squared norms of the dequantized row and of its error. They
  ;; are summed in f64, like the bounds that use them: only exactly stored values enter them. In WebAssembly because
  ;; the same loop in JS made a 12k-tool start 0.2–0.4 s slower.
  (func (export "quantize") (param $row i32) (param $out i32) (param $stride i32) (param $inverse f32) (param $scale f64)
    (param $norms i32)
    (local $end i32) (local $v v128) (local $q v128) (local $s v128) (local $d v128) (local $e v128)
    (local $quant v128) (local $error v128)
    (local.set $end (i32.add (local.get $row) (i32.shl (local.get $stride) (i32.const 2))))
    (local.set $s (f64x2.splat (local.get $scale)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $v (v128.load (local.get $row)))
        (local.set $q (i32x4.trunc_sat_f32x4_s
          (f32x4.nearest (f32x4.mul (local.get $v) (f32x4.splat (local.get $inverse))))))
        ;; Four i32 narrowed (saturating, values already in range) to four int8, stored as one i32.
        (i32.store (local.get $out) (i32x4.extract_lane 0
          (i8x16.narrow_i16x8_s
            (i16x8.narrow_i32x4_s (local.get $q) (local.get $q))
            (i16x8.narrow_i32x4_s (local.get $q) (local.get $q)))))
        ;; Lanes 0–1, then 2–3 (moved down by a shuffle), widened to f64.
        (local.set $d (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $q)) (local.get $s)))
        (local.set $e (f64x2.sub (f64x2.promote_low_f32x4 (local.get $v)) (local.get $d)))
        (local.set $quant (f64x2.add (local.get $quant) (f64x2.mul (local.get $d) (local.get $d))))
        (local.set $error (f64x2.add (local.get $error) (f64x2.mul (local.get $e) (local.get $e))))
        (local.set $v (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $v) (local.get $v)))
        (local.set $q (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $q) (local.get $q)))
        (local.set $d (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $q)) (local.get $s)))
        (local.set $e (f64x2.sub (f64x2.promote_low_f32x4 (local.get $v)) (local.get $d)))
        (local.set $quant (f64x2.add (local.get $quant) (f64x2.mul (local.get $d) (local.get $d))))
        (local.set $error (f64x2.add (local.get $error) (f64x2.mul (local.get $e) (local.get $e))))
        (local.set $row (i32.add (local.get $row) (i32.const 16)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $next)))
    (f64.store offset=0 (local.get $norms)
      (f64.add (f64x2.extract_lane 0 (local.get $quant)) (f64x2.extract_lane 1 (local.get $quant))))
    (f64.store offset=8 (local.get $norms)
      (f64.add (f64x2.extract_lane 0 (local.get $error)) (f64x2.extract_lane 1 (local.get $error)))))
)
