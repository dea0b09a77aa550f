batch_size = 64
block_size = 256 # context
learning_rate = 1e-3
max_iters = 5 * 1000
decay_lr = True
out_dir = "out-x"
