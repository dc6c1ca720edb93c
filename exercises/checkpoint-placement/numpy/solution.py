def peak_memory(sizes, checkpoints):
    """The largest memory held at any moment of the forward and backward passes."""
    # memory[i + 1] is the memory of activation i, so memory[0] stands for the network
    # input (activation -1), which the caller holds anyway and which counts 0.
    memory = [0, *sizes]
    boundaries = [-1, *checkpoints]
    ends = [*checkpoints, len(sizes) - 1]
    steps = []
    kept_below = 0  # the checkpoints strictly below the current boundary
    for start, end in zip(boundaries, ends):
        # Going back through layers start+1 .. end holds activation start (the checkpoint
        # the segment is rebuilt from), the rebuilt activations start+1 .. end-1 and the
        # gradient arriving at activation end, whose memory is that of activation end.
        steps.append(kept_below + sum(memory[i + 1] for i in range(start, end + 1)))
        kept_below += memory[start + 1]
    # The forward pass never holds more than the backward step of the same segment, so the
    # largest backward step is the peak of the whole training step.
    return max(steps)


def best_checkpoints(sizes):
    """A checkpoint list with the smallest peak, found by trying every valid list."""
    every_list = [[]]
    for layer in range(len(sizes) - 1):  # the output of the last layer is never a checkpoint
        every_list += [[*chosen, layer] for chosen in every_list]
    # The smallest peak first; among equal peaks, the most checkpoints: a segment re-runs
    # all its layers but the last, so more segments means fewer layers run twice.
    return min(every_list, key=lambda chosen: (peak_memory(sizes, chosen), -len(chosen)))
