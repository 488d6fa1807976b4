(module
  (tag $e)
  (func (export "_start") (block (try_table (catch_all 0) (throw $e)))))
