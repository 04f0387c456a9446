// HIP port of tests/cuda-corpus/rodinia-btree.cu (README.md): the same kernels.
// Rodinia-style B+tree: findK (one block per query walks the tree level by
// level; every thread tests one key of the current node and the one whose
// key range holds the query moves the block on) and findRangeK (two walks
// at once, for the start and end of a range).

#define ORDER 256

typedef struct {
  int location;
  int indices[ORDER + 1];
  int keys[ORDER + 1];
  bool is_leaf;
  int num_keys;
} knode;

typedef struct {
  int value;
} record;

__global__ void find_k(long height, const knode *knodes, long knodes_elem, const record *records,
                       long *current_node, long *offset, const int *keys, record *ans) {
  int thid = threadIdx.x;
  int bid = blockIdx.x;
  for (int i = 0; i < height; ++i) {
    const knode *node = &knodes[current_node[bid]];
    if (node->keys[thid] <= keys[bid] && node->keys[thid + 1] > keys[bid]) {
      if (node->indices[thid] < knodes_elem) offset[bid] = node->indices[thid];
    }
    __syncthreads();
    if (thid == 0) current_node[bid] = offset[bid];
    __syncthreads();
  }
  if (knodes[current_node[bid]].keys[thid] == keys[bid]) {
    ans[bid].value = records[knodes[current_node[bid]].indices[thid]].value;
  }
}

__global__ void find_range_k(long height, const knode *knodes, long knodes_elem,
                             long *current_node, long *offset, long *last_node,
                             long *offset_2, const int *start, const int *end,
                             int *rec_start, int *rec_length) {
  int thid = threadIdx.x;
  int bid = blockIdx.x;
  for (int i = 0; i < height; ++i) {
    const knode *a = &knodes[current_node[bid]];
    const knode *b = &knodes[last_node[bid]];
    if (a->keys[thid] <= start[bid] && a->keys[thid + 1] > start[bid] &&
        a->indices[thid] < knodes_elem)
      offset[bid] = a->indices[thid];
    if (b->keys[thid] <= end[bid] && b->keys[thid + 1] > end[bid] &&
        b->indices[thid] < knodes_elem)
      offset_2[bid] = b->indices[thid];
    __syncthreads();
    if (thid == 0) {
      current_node[bid] = offset[bid];
      last_node[bid] = offset_2[bid];
    }
    __syncthreads();
  }
  if (knodes[current_node[bid]].keys[thid] == start[bid]) rec_start[bid] = knodes[current_node[bid]].indices[thid];
  __syncthreads();
  if (knodes[last_node[bid]].keys[thid] == end[bid])
    rec_length[bid] = knodes[last_node[bid]].indices[thid] - rec_start[bid] + 1;
}
