"""Import circles between the files of each folder under src/: an edge A -> B when file A names a
sibling file B (`super::B`, `super::{.., B, ..}` or `crate::<folder path>::B`) outside comments and
tests. Prints each circle and the count. Run from the repository root:
python3 tools/import_circles.py"""
import glob, os, re, sys
from collections import defaultdict


def strongly_connected(graph):
    index, low, stack, on_stack, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            out.append(component)

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


circles = 0
for folder in sorted({os.path.dirname(f) for f in glob.glob('src/**/*.rs', recursive=True)}):
    files = {os.path.basename(f)[:-3]: f for f in glob.glob(folder + '/*.rs')}
    module = folder[len('src/'):].replace('/', '::')
    graph = defaultdict(set)
    for name, path in files.items():
        text = open(path).read().split('#[cfg(test)]')[0]
        text = '\n'.join(l for l in text.split('\n') if not l.strip().startswith('//'))
        graph[name]
        for other in files:
            if other in (name, 'mod'):
                continue
            sibling = r'super::(\{[^}]*\b' + other + r'\b|' + other + r'\b)'
            absolute = r'crate::' + re.escape(module) + '::' + other + r'\b'
            if re.search(sibling, text) or re.search(absolute, text):
                graph[name].add(other)
    for component in strongly_connected(graph):
        if len(component) > 1:
            circles += 1
            print(folder, sorted(component))
print(circles, 'circles')
